"""A seeded Zipf-distributed vocabulary and topics, for benches that write messages
straight into the database (bench/search.py, bench/large_org.py)."""
from __future__ import annotations

import bisect
import itertools
import random

VOCABULARY = 20_000
TOPICS = 200
RARE_WORD = "okapi"


def _words(rng: random.Random) -> list[str]:
    syllables = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]
    words: set[str] = set()
    ordered: list[str] = []
    while len(ordered) < VOCABULARY:
        word = "".join(rng.choice(syllables) for _ in range(rng.randint(2, 4)))
        if word not in words and word != RARE_WORD:
            words.add(word)
            ordered.append(word)
    return ordered


class Corpus:
    def __init__(self, seed: int = 21) -> None:
        self.rng = random.Random(seed)
        self.vocabulary = _words(self.rng)
        weights = [1 / (rank + 1) ** 1.07 for rank in range(VOCABULARY)]
        self.cumulative = list(itertools.accumulate(weights))
        self.topics = [f"{self.vocabulary[5000 + n]} {self.vocabulary[9000 + n]}"
                       for n in range(TOPICS)]

    def word(self) -> str:
        point = self.rng.random() * self.cumulative[-1]
        return self.vocabulary[bisect.bisect_left(self.cumulative, point)]

    def text(self, count: int) -> str:
        return " ".join(self.word() for _ in range(count))
