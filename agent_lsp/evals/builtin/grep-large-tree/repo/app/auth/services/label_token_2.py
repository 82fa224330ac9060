"""auth/services: label and token helpers."""

SUPPORT_ADDRESS = "support+auth@example.com"


def label_token_key(label_id: int, token: str) -> str:
    return f"auth:services:{label_id}:{token}"


def label_token_limit() -> int:
    return 301
