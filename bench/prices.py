"""List prices (us-east-1) for cost figures, and cost lines that show their arithmetic.

From STACK-NOTES.md, except SQS ($0.40 per million standard-queue requests, AWS's list
price) for the long-poll's wake queues.
"""
from __future__ import annotations

from dataclasses import dataclass, field

LAMBDA_PER_REQUEST = 0.20 / 1e6
LAMBDA_PER_GB_SECOND = {"x86_64": 0.0000166667, "arm64": 0.0000133334}
API_GATEWAY_REST_PER_REQUEST = 3.50 / 1e6
WEBSOCKET_PER_MESSAGE = 1.00 / 1e6          # per 32 KB unit
WEBSOCKET_PER_CONNECTION_MINUTE = 0.25 / 1e6
DYNAMODB_PER_WRITE_UNIT = 0.625 / 1e6
DYNAMODB_PER_READ_UNIT = 0.125 / 1e6
SQS_PER_REQUEST = 0.40 / 1e6


@dataclass
class Bill:
    """Cost lines (what, quantity x unit price = amount) and their total."""

    lines: list[tuple[str, float]] = field(default_factory=list)

    def add(self, what: str, quantity: float, unit_price: float, unit: str) -> None:
        amount = quantity * unit_price
        per_million = unit_price * 1e6
        text = (f"{what:<28} {quantity:>12,.2f} {unit} x ${per_million:.4g}/M"
                if per_million >= 0.01 else
                f"{what:<28} {quantity:>12,.2f} {unit} x ${unit_price:.10f}")
        self.lines.append((text, amount))

    def lambda_time(self, what: str, seconds: float, memory_mb: int, arch: str) -> None:
        gb_seconds = seconds * memory_mb / 1024
        text = (f"{what:<28} {seconds:>9,.1f} s x {memory_mb / 1024:.3f} GB x "
                f"${LAMBDA_PER_GB_SECOND[arch]}/GB-s ({arch})")
        self.lines.append((text, gb_seconds * LAMBDA_PER_GB_SECOND[arch]))

    @property
    def total(self) -> float:
        return sum(amount for _, amount in self.lines)

    def print(self, indent: str = "      ") -> None:
        for text, amount in self.lines:
            print(f"{indent}{text:<78} = ${amount:.7f}")
        print(f"{indent}{'total':<78} = ${self.total:.7f}")
