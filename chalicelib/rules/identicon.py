"""A small deterministic identicon, drawn as SVG from a hex digest alone.

The server draws a person's generated picture (avatar_source "J", the reference's
Jdenticon) from the digest in its URL: nothing else is read and no user text goes into
the image, so it can be served to anyone with the strictest headers and cached forever."""
from __future__ import annotations

import re

GRID = 5          # cells a side; the left half is mirrored onto the right
CELL = 16         # SVG units a cell (the picture is 80×80, scaled by the client)
_HEX_DIGEST = re.compile(r"[0-9a-f]{32}")


def is_identicon_digest(text: str) -> bool:
    return _HEX_DIGEST.fullmatch(text) is not None


def identicon_svg(digest: str) -> str:
    """An 80×80 SVG: a mirrored 5×5 pattern in one colour on a light background, both
    taken from the digest (32 lowercase hex digits, checked by the caller)."""
    if not is_identicon_digest(digest):
        raise ValueError("an identicon is drawn from 32 lowercase hex digits")
    bits = int(digest, 16)
    hue = (bits >> 100) % 360   # the digest's top bits choose the colour
    colour = f"hsl({hue},55%,48%)"
    half = (GRID + 1) // 2
    cells = []
    for column in range(half):
        for row in range(GRID):
            if bits >> (column * GRID + row) & 1:
                for x in sorted({column, GRID - 1 - column}):
                    cells.append(f'<rect x="{x * CELL}" y="{row * CELL}" '
                                 f'width="{CELL}" height="{CELL}"/>')
    size = GRID * CELL
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" '
            f'viewBox="0 0 {size} {size}"><rect width="{size}" height="{size}" '
            f'fill="hsl({hue},30%,94%)"/><g fill="{colour}">{"".join(cells)}</g></svg>')
