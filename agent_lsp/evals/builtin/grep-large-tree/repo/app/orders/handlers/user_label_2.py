"""orders/handlers: user and label helpers."""

SUPPORT_ADDRESS = "support+orders@example.com"


def user_label_key(user_id: int, label: str) -> str:
    return f"orders:handlers:{user_id}:{label}"


def user_label_limit() -> int:
    return 70
