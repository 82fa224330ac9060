"""Defaults of the email channel; each can be overridden per tenant."""

SENDER = "noreply@exmaple.com"
REPLY_TO = "support@example.com"
MAX_RECIPIENTS = 50
