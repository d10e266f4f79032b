"""Our error messages are in our own words: no text in chalicelib/ repeats one of the reference
server's error sentences (tests/fixtures/reference_error_sentences.txt).

The texts are found through the syntax tree, so a message counts however it is written: a plain
or implicitly joined literal, an f-string (its constant parts, each interpolation standing for
any value), or literals joined with `+`. Two texts are the same sentence when they differ only
in case, spacing or a final full stop or exclamation mark, and where the reference's sentence has
a placeholder ours has anything (a name written in, or a placeholder of its own). A sentence of
fewer than three words besides its placeholders ("Invalid {var_name}") is too plain to own: only
the same placeholders in the same places count as repeating it.
"""
from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "chalicelib"
SENTENCES = ROOT / "tests" / "fixtures" / "reference_error_sentences.txt"

ANY = "\x00"   # what every placeholder becomes
# {name} / {} (str.format and the fixture), %(name)s and %s / %d (printf style).
_PLACEHOLDER = re.compile(r"\{[^{}]*\}|%\([^)]*\)[sdifr]|%[sd]")


def normalise(text: str) -> str:
    """One form for a sentence: placeholders alike, lower case, single spaces, no final stop."""
    text = _PLACEHOLDER.sub(ANY, text)
    return re.sub(r"\s+", " ", text).strip().lower().rstrip(".!")


def _text_of(node: ast.AST) -> str | None:
    """The text a string expression spells, its interpolations as placeholders; None for others."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.JoinedStr):
        return "".join(part.value if isinstance(part, ast.Constant) else "{}"
                       for part in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _text_of(node.left), _text_of(node.right)
        return None if left is None or right is None else left + right
    return None


def texts_in(source: str) -> Iterator[tuple[int, str]]:
    """(line, text) of every string expression of a module, f-strings and `+` joins included."""
    for node in ast.walk(ast.parse(source)):
        text = _text_of(node)
        if text is not None:
            yield getattr(node, "lineno", 0), text


MIN_WORDS_FOR_ANY = 3


def _matcher(sentence: str) -> re.Pattern[str]:
    """What repeats `sentence`: its placeholders stand for any text when it has words enough."""
    words = normalise(sentence).split(ANY)
    if len(" ".join(words).split()) < MIN_WORDS_FOR_ANY:
        return re.compile(re.escape(normalise(sentence)))
    return re.compile(".+".join(re.escape(part) for part in words), re.DOTALL)


@cache
def reference_sentences() -> dict[str, re.Pattern[str]]:
    lines = SENTENCES.read_text(encoding="utf-8").splitlines()
    return {line: _matcher(line) for line in lines if line.strip() and not line.startswith("#")}


def repeats(text: str) -> str | None:
    """The reference sentence `text` repeats, or None."""
    form = normalise(text)
    return next((line for line, pattern in reference_sentences().items() if pattern.fullmatch(form)),
                None)


def test_the_list_is_read_and_the_normal_form_is_placeholder_blind() -> None:
    assert len(reference_sentences()) > 100
    assert normalise("Invalid user ID: %(user_id)s") == normalise("invalid user id: {}.")
    flagged = [text for _, text in texts_in('raise ApiError(f"Invalid user ID: {user.id}!")\n'
                                            'x = "Invalid " + "channel ID"\n'
                                            'y = f"title is too long (limit: {n} characters)"\n'
                                            'z = "Invalid color_scheme"\n')
               if repeats(text)]
    assert sorted(flagged) == ["Invalid channel ID", "Invalid user ID: {}!",
                               "title is too long (limit: {} characters)"]


def test_no_message_in_chalicelib_repeats_a_reference_sentence() -> None:
    repeated = [f"{path.relative_to(ROOT)}:{line}: {text!r} is the reference's {original!r}"
                for path in sorted(PACKAGE.rglob("*.py"))
                for line, text in texts_in(path.read_text(encoding="utf-8"))
                if (original := repeats(text))]
    assert not repeated, "reword these in our own words:\n" + "\n".join(repeated)
