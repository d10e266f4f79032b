"""Notifications for people who are away: missed-message email and mobile push.

pending (the fan-out's step: new messages and reads handed over) → jobs (the
notifier's SQS queue) → notifier (the handler) → decide (who is notified, by rules,
pure: pending items, wake-ups, push jobs) and, later, email per period and pushes, with
email_render, push (SNS), tokens and unsubscribe (the one-click link), bounces (SES).
"""
