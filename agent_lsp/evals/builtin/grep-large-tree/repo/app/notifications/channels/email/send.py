from .defaults import MAX_RECIPIENTS, REPLY_TO, SENDER


def envelope(to: list[str], subject: str) -> dict:
    if len(to) > MAX_RECIPIENTS:
        raise ValueError("too many recipients")
    return {"from": SENDER, "reply_to": REPLY_TO, "to": to, "subject": subject}
