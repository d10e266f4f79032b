"""Text to search terms: folding, stemming, CJK bigrams; queries, matching, highlighting.

The same functions tokenize a message when it is indexed, a query when it is read, and
a message again when a candidate is verified or highlighted, so all three agree.

- Folding: NFKD, combining marks dropped (café = cafe; Arabic vowel marks), case folded,
  recomposed (NFC). Marks that change a letter rather than accent it stay: the Cyrillic
  breve (й is not и) and the kana voicing marks (ガ is not カ); ё folds to е.
- Words: runs of letters and digits. Latin, Greek, Cyrillic and Arabic words are stemmed
  by the Snowball stemmer of their script (English for Latin text), so "messages" finds
  "message" and "сообщения" finds "сообщение".
- Han, Hiragana, Katakana and Hangul have no spaces between words: a run of them becomes
  overlapping character bigrams (東京都 -> 東京, 京都), and each character is a term too,
  so a one-character query finds it. A run in a query must match as a phrase.
"""
from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

MAX_TERM_LENGTH = 64   # longer words (hashes, base64) are cut to this; queries are too

# Letters, digits and the combining marks that NFC text may still carry.
_RUN = re.compile(r"[\w\u0300-\u036f\u0483-\u0489\u0591-\u05c7\u0610-\u061a"
                  r"\u064b-\u065f\u0670\u06d6-\u06ed\u3099\u309a]+")
_TAG_OR_ENTITY = re.compile(r"<[^>]*>|&(?:#\d+|#x[0-9a-fA-F]+|\w+);")
_KEEP_MARKS = {"\u0306", "\u3099", "\u309a"}   # й/ў (Cyrillic breve), kana voicing
HIGHLIGHT_OPEN, HIGHLIGHT_CLOSE = '<span class="highlight">', "</span>"


class _Stemmer(Protocol):
    def stemWord(self, word: str) -> str: ...  # the library's name


def _is_cjk(char: str) -> bool:
    code = ord(char)
    return (0x3040 <= code <= 0x30FF          # Hiragana, Katakana
            or 0x3400 <= code <= 0x4DBF       # CJK Extension A
            or 0x4E00 <= code <= 0x9FFF       # CJK Unified Ideographs
            or 0xF900 <= code <= 0xFAFF       # CJK Compatibility Ideographs
            or 0xAC00 <= code <= 0xD7AF       # Hangul syllables
            or 0x1100 <= code <= 0x11FF       # Hangul Jamo
            or 0x3130 <= code <= 0x318F       # Hangul compatibility Jamo
            or 0x31F0 <= code <= 0x31FF       # Katakana phonetic extensions
            or 0xFF66 <= code <= 0xFF9F       # halfwidth Katakana
            or 0x20000 <= code <= 0x2FFFF)    # CJK Extensions B and later


@lru_cache(maxsize=8)
def _stemmer(language: str) -> _Stemmer:
    # Imported on first use: the package loads all of its ~30 languages (about 0.1 s
    # of CPU), which the cold start of every function that imports search would pay.
    import snowballstemmer

    stemmer: _Stemmer = snowballstemmer.stemmer(language)
    return stemmer


def _language(word: str) -> str | None:
    """The Snowball stemmer for a folded word's script; None: leave it as it is."""
    for char in word:
        code = ord(char)
        if char.isdigit() or char == "_":
            continue
        if code < 0x250:
            return "english"
        if 0x370 <= code <= 0x3FF:
            return "greek"
        if 0x400 <= code <= 0x52F:
            return "russian"
        if 0x600 <= code <= 0x6FF or 0x750 <= code <= 0x77F:
            return "arabic"
        return None
    return None


def fold(text: str) -> str:
    """Case and accent folding (see the module's docstring)."""
    decomposed = unicodedata.normalize("NFKD", text)
    kept: list[str] = []
    for char in decomposed:
        if unicodedata.combining(char) and char not in _KEEP_MARKS:
            continue
        kept.append(char)
    return unicodedata.normalize("NFC", "".join(kept)).casefold()


@lru_cache(maxsize=65536)
def word_term(word: str) -> str:
    """The index term of one word (not CJK): folded and stemmed."""
    folded = fold(word)
    language = _language(folded)
    if language is not None and not folded.isdigit():
        folded = _stemmer(language).stemWord(folded)
    return folded[:MAX_TERM_LENGTH]


@dataclass(frozen=True)
class Token:
    """A term at a place of the text: `start`..`end` in the original string.
    `positional` tokens form the sequence phrases match against; CJK single characters
    inside longer runs are terms, but not positions."""

    term: str
    start: int
    end: int
    positional: bool = True


def tokens(text: str) -> Iterator[Token]:
    for run in _RUN.finditer(text):
        yield from _run_tokens(run.group(), run.start())


def _run_tokens(run: str, offset: int) -> Iterator[Token]:
    start = 0
    while start < len(run):
        cjk = _is_cjk(run[start])
        end = start + 1
        while end < len(run) and _is_cjk(run[end]) == cjk:
            end += 1
        segment = run[start:end]
        if not cjk:
            if segment.strip("_"):
                yield Token(word_term(segment), offset + start, offset + end)
        elif len(segment) == 1:
            yield Token(fold(segment), offset + start, offset + end)
        else:
            folded = [fold(char) for char in segment]
            for i in range(len(segment) - 1):
                yield Token(folded[i] + folded[i + 1], offset + start + i,
                            offset + start + i + 2)
            for i, char in enumerate(folded):
                yield Token(char, offset + start + i, offset + start + i + 1,
                            positional=False)
        start = end


def terms_of(text: str) -> set[str]:
    return {token.term for token in tokens(text)}


def sequence_of(text: str) -> list[str]:
    return [token.term for token in tokens(text) if token.positional]


@dataclass(frozen=True)
class SearchQuery:
    """A parsed `search` operand: every term must occur in the message's content or
    topic, and every phrase (two or more terms) must occur in order in one of them."""

    text: str
    terms: frozenset[str]
    phrases: tuple[tuple[str, ...], ...]
    # What highlighting wraps: the query's words and bigrams, not the single characters
    # a CJK run is also indexed under.
    shown: frozenset[str] = frozenset()

    @property
    def is_empty(self) -> bool:
        """Nothing searchable (only punctuation): matches no message."""
        return not self.terms


_QUERY_PART = re.compile(r'"([^"]*)"?|(\S+)')


def parse_search_query(text: str) -> SearchQuery:
    """Words are AND-ed; "quoted phrases" match in order; a word the tokenizer splits
    (don't, e-mail, a run of CJK characters) is a phrase of its pieces."""
    terms: set[str] = set()
    shown: set[str] = set()
    phrases: list[tuple[str, ...]] = []
    for match in _QUERY_PART.finditer(text):
        part = match.group(1) if match.group(1) is not None else match.group(2)
        found = list(tokens(part))
        terms.update(token.term for token in found)
        sequence = tuple(token.term for token in found if token.positional)
        shown.update(sequence)
        if len(sequence) > 1 and sequence not in phrases:
            phrases.append(sequence)
    return SearchQuery(text, frozenset(terms), tuple(phrases), frozenset(shown))


def _contains(sequence: Sequence[str], phrase: Sequence[str]) -> bool:
    width = len(phrase)
    first = phrase[0]
    return any(sequence[i] == first and tuple(sequence[i:i + width]) == tuple(phrase)
               for i in range(len(sequence) - width + 1))


def matches(query: SearchQuery, content: str, topic: str) -> bool:
    """Whether a message (its raw content and its topic) matches the query: the check
    every candidate from the index passes before it is returned."""
    if query.is_empty:
        return False
    content_tokens, topic_tokens = list(tokens(content)), list(tokens(topic))
    present = {t.term for t in content_tokens} | {t.term for t in topic_tokens}
    if not query.terms <= present:
        return False
    sequences = [[t.term for t in content_tokens if t.positional],
                 [t.term for t in topic_tokens if t.positional]]
    return all(any(_contains(sequence, phrase) for sequence in sequences)
               for phrase in query.phrases)


def _highlight_text(text: str, terms: frozenset[str], escape: bool) -> str:
    """`text` with each run of matching tokens wrapped; escaped when it is plain text."""
    spans: list[tuple[int, int]] = []
    for token in tokens(text):
        if token.term not in terms:
            continue
        if spans and token.start <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(spans[-1][1], token.end))
        else:
            spans.append((token.start, token.end))
    if not spans:
        return html.escape(text, quote=False) if escape else text
    out: list[str] = []
    at = 0
    for start, end in spans:
        out.append(html.escape(text[at:start], quote=False) if escape else text[at:start])
        word = text[start:end]
        out.append(HIGHLIGHT_OPEN + (html.escape(word, quote=False) if escape else word)
                   + HIGHLIGHT_CLOSE)
        at = end
    out.append(html.escape(text[at:], quote=False) if escape else text[at:])
    return "".join(out)


def highlight(query: SearchQuery, rendered_content: str, topic: str) -> tuple[str, str]:
    """(match_content, match_subject): the rendered HTML with the matched words wrapped
    in `<span class="highlight">`, tags and entities left alone, and the topic
    HTML-escaped with its matched words wrapped the same way."""
    pieces: list[str] = []
    at = 0
    for markup in _TAG_OR_ENTITY.finditer(rendered_content):
        pieces.append(_highlight_text(rendered_content[at:markup.start()], query.shown,
                                      escape=False))
        pieces.append(markup.group())
        at = markup.end()
    pieces.append(_highlight_text(rendered_content[at:], query.shown, escape=False))
    return "".join(pieces), _highlight_text(topic, query.shown, escape=True)
