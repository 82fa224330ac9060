"""orders/models: user and label helpers."""

SUPPORT_ADDRESS = "support+orders@example.com"


def user_label_key(user_id: int, label: str) -> str:
    return f"orders:models:{user_id}:{label}"


def user_label_limit() -> int:
    return 208
