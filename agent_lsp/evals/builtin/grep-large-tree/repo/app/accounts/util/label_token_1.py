"""accounts/util: label and token helpers."""

SUPPORT_ADDRESS = "support+accounts@example.com"


def label_token_key(label_id: int, token: str) -> str:
    return f"accounts:util:{label_id}:{token}"


def label_token_limit() -> int:
    return 331
