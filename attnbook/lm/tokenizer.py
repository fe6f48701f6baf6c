"""Tokenizers: words of the email corpus, or characters of any UTF-8 text.

Both share the special ids ``<PAD>`` = 0, ``<BOS>`` = 1, ``<EOS>`` = 2; ordinary tokens
follow in sorted order. Both save to and load from JSON, and `tokenizer_from_dict` rebuilds
either from the dictionary stored inside a checkpoint.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path

PAD, BOS, EOS = "<PAD>", "<BOS>", "<EOS>"
SPECIAL_TOKENS = (PAD, BOS, EOS)
PAD_ID, BOS_ID, EOS_ID = 0, 1, 2  # their ids in every tokenizer of the course


class UnknownTokenError(KeyError, ValueError):
    """A token outside the vocabulary; the message names it and its position."""

    def __str__(self) -> str:  # KeyError would print the message inside quotes
        return str(self.args[0])


class _Tokenizer:
    """Shared machinery: a fixed list of tokens after the three special ones."""

    kind = ""

    def __init__(self, tokens: Iterable[str]) -> None:
        tokens = list(tokens)
        clashes = [t for t in tokens if t in SPECIAL_TOKENS]
        if clashes:
            raise ValueError(f"tokens: {clashes} are reserved special tokens")
        if len(set(tokens)) != len(tokens):
            raise ValueError("tokens: the vocabulary has repeated entries")
        self.id_to_token: list[str] = [*SPECIAL_TOKENS, *tokens]
        self.token_to_id: dict[str, int] = {t: i for i, t in enumerate(self.id_to_token)}

    pad_id = PAD_ID
    bos_id = BOS_ID
    eos_id = EOS_ID

    @property
    def vocab_size(self) -> int:
        return len(self.id_to_token)

    def _split(self, text_or_words: str | Sequence[str]) -> list[str]:
        raise NotImplementedError

    def _join(self, tokens: list[str]) -> str:
        raise NotImplementedError

    def encode(
        self, text_or_words: str | Sequence[str], add_bos: bool = True, add_eos: bool = True
    ) -> list[int]:
        """Token ids, with ``<BOS>`` first and ``<EOS>`` last unless switched off."""
        ids = [self.bos_id] if add_bos else []
        for position, token in enumerate(self._split(text_or_words)):
            if token not in self.token_to_id or token in SPECIAL_TOKENS:
                raise UnknownTokenError(
                    f"{self.kind} {token!r} at position {position} is not in the vocabulary "
                    f"of {self.vocab_size - len(SPECIAL_TOKENS)} {self.kind}s"
                )
            ids.append(self.token_to_id[token])
        if add_eos:
            ids.append(self.eos_id)
        return ids

    def decode(self, ids: Iterable[int], skip_special: bool = True) -> str:
        """The text of ``ids``; special tokens are dropped unless ``skip_special`` is False."""
        tokens = []
        for i in ids:
            i = int(i)
            if not 0 <= i < self.vocab_size:
                raise ValueError(f"ids: {i} is outside [0, {self.vocab_size - 1}]")
            if skip_special and i < len(SPECIAL_TOKENS):
                continue
            tokens.append(self.id_to_token[i])
        return self._join(tokens)

    def to_dict(self) -> dict:
        return {"kind": self.kind, "tokens": self.id_to_token[len(SPECIAL_TOKENS) :]}

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), ensure_ascii=False, indent=1))

    @classmethod
    def load(cls, path: str | Path) -> _Tokenizer:
        tokenizer = tokenizer_from_dict(json.loads(Path(path).read_text()))
        if not isinstance(tokenizer, cls):
            raise ValueError(f"path: {path} holds a {tokenizer.kind} tokenizer")
        return tokenizer

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self.id_to_token == other.id_to_token

    def __repr__(self) -> str:
        return f"{type(self).__name__}(vocab_size={self.vocab_size})"


class WordTokenizer(_Tokenizer):
    """Space-separated words, by default the vocabulary of the email grammar."""

    kind = "word"

    def __init__(self, vocabulary: Iterable[str] | None = None) -> None:
        if vocabulary is None:
            from attnbook.lm.corpus import DEFAULT_GRAMMAR

            vocabulary = DEFAULT_GRAMMAR.vocabulary()
        super().__init__(vocabulary)

    def _split(self, text_or_words: str | Sequence[str]) -> list[str]:
        return text_or_words.split() if isinstance(text_or_words, str) else list(text_or_words)

    def _join(self, tokens: list[str]) -> str:
        return " ".join(tokens)


class CharTokenizer(_Tokenizer):
    """Single characters (Unicode code points) of a text, for training on one's own file."""

    kind = "char"

    def __init__(self, characters: Iterable[str]) -> None:
        characters = list(characters)
        long = [c for c in characters if len(c) != 1]
        if long:
            raise ValueError(f"characters: expected single characters, got {long[:5]}")
        super().__init__(characters)

    @classmethod
    def from_text(cls, text: str) -> CharTokenizer:
        """A tokenizer whose vocabulary is the sorted set of characters in ``text``."""
        if not text:
            raise ValueError("text: cannot build a character vocabulary from empty text")
        return cls(sorted(set(text)))

    def _split(self, text_or_chars: str | Sequence[str]) -> list[str]:
        return list(text_or_chars)

    def _join(self, tokens: list[str]) -> str:
        return "".join(tokens)


def tokenizer_from_dict(data: dict) -> WordTokenizer | CharTokenizer:
    """Rebuild a tokenizer from `to_dict`'s output (as stored in a checkpoint)."""
    kinds = {"word": WordTokenizer, "char": CharTokenizer}
    if data.get("kind") not in kinds:
        raise ValueError(f"data: unknown tokenizer kind {data.get('kind')!r}")
    return kinds[data["kind"]](data["tokens"])
