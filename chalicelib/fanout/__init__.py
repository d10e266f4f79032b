"""The outbox stream's fan-out and what it computes: one stream batch (batch.py), the
audiences, the recipients' unread rows and flags, the slices that spread big audiences,
the lag it reports."""
