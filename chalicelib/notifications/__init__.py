"""Notifications for people who are away: missed-message email and mobile push.

rules (who is notified, pure) → pending (the fan-out's step: records, wake-ups) →
jobs (the notifier's SQS queue) → notifier (the handler: email per period, pushes) with
email_render, push (SNS), tokens and unsubscribe (the one-click link), bounces (SES).
"""
