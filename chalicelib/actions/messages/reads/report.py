"""The kinds of message report, as the server settings list them (POST /register); the
report itself is actions/messages/report.py.
"""
from __future__ import annotations

REPORT_TYPE_LABELS: dict[str, str] = {
    "spam": "Spam", "harassment": "Harassment", "inappropriate": "Inappropriate content",
    "norms": "Against the community's norms", "other": "Another reason"}
