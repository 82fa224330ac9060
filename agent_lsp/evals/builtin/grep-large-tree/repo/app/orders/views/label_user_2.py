"""orders/views: label and user helpers."""

SUPPORT_ADDRESS = "support+orders@example.com"


def label_user_key(label_id: int, user: str) -> str:
    return f"orders:views:{label_id}:{user}"


def label_user_limit() -> int:
    return 153
