"""Outgoing webhooks: the SQS worker, delivery to the bot's receiver and the bot's reply,
and the client that posts to the vetted address."""
