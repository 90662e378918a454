"""A deterministic text corpus for the search benchmark: titles of 3 to 8 words and bodies of 200 to 800 words, drawn
from a fixed vocabulary with a Zipf distribution, so that a few words occur in nearly every document (as "the" and
"and" do in real text) and most are rare.

The vocabulary is made of pronounceable pseudo-words built from syllables with a fixed seed (a real word list would
have to be committed or downloaded). Word ``rank`` 1 is the most frequent; the probability of rank r is proportional
to 1 / r ** EXPONENT. With 40,000 words, exponent 1.05 and 500 words a document on average, the top words are in
every document, rank ~100 in about a third, rank ~2,000 in a few percent and the tail in a handful.

    corpus = Corpus()
    title, body = corpus.document(42)          # the same text for the same number, on every machine
"""

from __future__ import annotations

import itertools
import random
from functools import cached_property

SEED = 20261121
VOCABULARY = 40_000
EXPONENT = 1.05
ONSETS = ["b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z", "br", "ch",
          "cr", "dr", "fl", "gr", "pl", "pr", "sh", "st", "th", "tr"]  # fmt: skip
VOWELS = ["a", "e", "i", "o", "u", "ai", "ea", "io", "ou"]
CODAS = ["", "", "", "", "n", "r", "s", "l", "m", "t", "nd", "st"]


def _words(count: int, rng: random.Random) -> list[str]:
    seen: set[str] = set()
    words: list[str] = []
    while len(words) < count:
        syllables = rng.choice((1, 2, 2, 2, 3))
        word = "".join(rng.choice(ONSETS) + rng.choice(VOWELS) + rng.choice(CODAS) for _ in range(syllables))
        # Short words would be dropped or merged by stemmers and stop-word lists; keep the vocabulary distinct.
        if len(word) >= 4 and word not in seen:
            seen.add(word)
            words.append(word)
    return words


class Corpus:
    def __init__(self, seed: int = SEED, vocabulary: int = VOCABULARY, exponent: float = EXPONENT):
        self.seed = seed
        self.words = _words(vocabulary, random.Random(seed))
        self.cumulative = list(
            itertools.accumulate(1.0 / rank**exponent for rank in range(1, vocabulary + 1))
        )

    @cached_property
    def rank_of(self) -> dict[str, int]:
        return {word: rank for rank, word in enumerate(self.words, start=1)}

    def _draw(self, rng: random.Random, count: int) -> list[str]:
        return rng.choices(self.words, cum_weights=self.cumulative, k=count)

    def document(self, number: int) -> tuple[str, str]:
        """The title and body of document ``number``: the same on every call and every machine."""
        rng = random.Random(self.seed * 1_000_003 + number)
        title = " ".join(self._draw(rng, rng.randint(3, 8))).capitalize()
        length = rng.randint(200, 800)
        words = self._draw(rng, length)
        sentences = []
        position = 0
        while position < length:
            size = rng.randint(6, 18)
            sentence = " ".join(words[position : position + size])
            sentences.append(sentence[:1].upper() + sentence[1:] + ".")
            position += size
        paragraphs = []
        for start in range(0, len(sentences), 5):
            paragraphs.append(" ".join(sentences[start : start + 5]))
        return title, "\n\n".join(paragraphs)
