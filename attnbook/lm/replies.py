"""The reply task of notebook 11: a short work email in, its reply out, exact probabilities.

A source email reads ``hi A , S1 [S2] thanks , B .``: A is the person written to, B the
sender, S1 and S2 sentences of six kinds. Its reply greets the sender, answers each sentence
in order and is signed by the person written to::

    hi anna , please send the report before the draft . thanks , ben .
    hi ben , sure , the report first , then the draft . thanks , anna .

Each reply sentence is drawn from a table of templates with explicit probabilities, filled
in with the item, day or order of the sentence it answers; the sign-off comes from a table
of its own. So the true distribution of the replies to any source is known exactly:
`ReplyTask.replies` lists every reply with its probability (a few hundred at most). That
gives the most likely reply (the mode), the exact log-probability of any decoded reply, and
the conditional entropy, the floor under the training loss.

The tables make decoding strategies differ, as notebook 11 shows. After a request the most
likely first word is "sure" (0.56), but it splits over four sentences, each less likely than
the one "sorry" sentence (0.32); after a meeting question "yes" (0.55) splits over five
times while "no" (0.45) is one sentence. Greedy decoding misses both modes, a beam of two
finds them. For the other kinds the greedy reply is already the mode.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TypeVar

import numpy as np

from attnbook.lm.tokenizer import WordTokenizer

_K = TypeVar("_K")  # a table's keys

__all__ = [
    "DAYS",
    "ITEMS",
    "KINDS",
    "NAMES",
    "REPLY_TABLES",
    "SIGN_OFFS",
    "Email",
    "Judgement",
    "ReplyTask",
    "Sentence",
    "encode_pairs",
    "reply_tokenizer",
]

END = "<EOS>"  # the end of a reply, as a key of next_word_probs

# -- the source grammar: who, how many sentences, which kinds, which words ------------------
NAMES = {
    "anna": 0.2,
    "ben": 0.18,
    "carla": 0.16,
    "david": 0.14,
    "emma": 0.12,
    "farid": 0.1,
    "grace": 0.1,
}
ITEMS = {
    "report": 0.25,
    "draft": 0.2,
    "invoice": 0.15,
    "budget": 0.15,
    "agenda": 0.15,
    "contract": 0.1,
}
DAYS = {"monday": 0.25, "tuesday": 0.2, "wednesday": 0.2, "thursday": 0.2, "friday": 0.15}
SENTENCE_COUNTS = {1: 0.5, 2: 0.5}
KINDS = {"send": 0.15, "today": 0.15, "order": 0.15, "meet": 0.2, "check": 0.2, "moved": 0.15}
SOURCE_TEMPLATES = {
    "send": "please send the {item} .",
    "today": "please send the {item} today .",
    "order": "please send the {first} before the {second} .",
    "meet": "can we meet on {day} ?",
    "check": "can you check the {item} ?",
    "moved": "the meeting moved to {day} .",
}

# -- the reply grammar: one table of sentence templates per kind, and the sign-off ----------
_REQUEST = {
    "sure , i will send it today .": 0.22,
    "sure , i will send it tomorrow .": 0.14,
    "sure , it is attached .": 0.12,
    "sure , here it is .": 0.08,
    "sorry , the {item} is not ready .": 0.32,
    "ok , the {item} is on its way .": 0.12,
}
REPLY_TABLES = {
    "send": _REQUEST,
    "today": _REQUEST,
    "order": {
        "sure , the {first} first , then the {second} .": 0.60,
        "sorry , the {first} is not ready .": 0.25,
        "ok .": 0.15,
    },
    "meet": {
        "yes , {day} at nine works .": 0.16,
        "yes , {day} at ten works .": 0.13,
        "yes , {day} at noon works .": 0.11,
        "yes , {day} at two works .": 0.08,
        "yes , {day} at four works .": 0.07,
        "no , i am away on {day} .": 0.45,
    },
    "check": {
        "i will check it today .": 0.50,
        "i checked it and it looks good .": 0.20,
        "the {item} looks good .": 0.30,
    },
    "moved": {
        "ok , see you on {day} .": 0.70,
        "thanks for letting me know .": 0.30,
    },
}
SIGN_OFFS = {"thanks , {name} .": 0.6, "best , {name} .": 0.4}


def _check_table(name: str, table: dict) -> None:
    total = sum(table.values())
    if abs(total - 1.0) > 1e-9 or min(table.values()) <= 0:
        raise ValueError(f"{name}: probabilities must be > 0 and sum to 1, got sum {total}")


_TABLES: dict[str, dict] = {
    "NAMES": NAMES,
    "ITEMS": ITEMS,
    "DAYS": DAYS,
    "KINDS": KINDS,
    "SENTENCE_COUNTS": SENTENCE_COUNTS,
    "SIGN_OFFS": SIGN_OFFS,
    **{f"REPLY_TABLES[{k!r}]": v for k, v in REPLY_TABLES.items()},
}
for _name, _table in _TABLES.items():
    _check_table(_name, _table)


@dataclass(frozen=True)
class Sentence:
    """One sentence of a source email: its kind and the words it fills in."""

    kind: str
    slots: tuple[tuple[str, str], ...]  # e.g. (("item", "report"),)

    def words(self) -> list[str]:
        return SOURCE_TEMPLATES[self.kind].format(**dict(self.slots)).split()

    def reply_table(self) -> dict[tuple[str, ...], float]:
        """Every reply sentence to this one, as words, with its probability."""
        slots = dict(self.slots)
        return {tuple(t.format(**slots).split()): p for t, p in REPLY_TABLES[self.kind].items()}


@dataclass(frozen=True)
class Email:
    """A source email: ``hi recipient , <sentences> thanks , sender .``"""

    recipient: str
    sender: str
    sentences: tuple[Sentence, ...]

    def words(self) -> list[str]:
        body = [w for s in self.sentences for w in s.words()]
        return ["hi", self.recipient, ",", *body, "thanks", ",", self.sender, "."]

    def text(self) -> str:
        return " ".join(self.words())

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(s.kind for s in self.sentences)


@dataclass(frozen=True)
class Judgement:
    """A decoded reply scored against the true distribution of replies to its source."""

    valid: bool  # the task can write this reply (probability > 0)
    log_prob: float  # its true log-probability, -inf when invalid
    is_mode: bool  # it is the single most likely reply
    regret: float  # log p(mode) - log p(reply), 0 for the mode, inf when invalid


def _draw(rng: np.random.Generator, table: Mapping[_K, float], exclude: Sequence[_K] = ()) -> _K:
    """One key of ``table`` with its probability (renormalised without ``exclude``)."""
    keys = [k for k in table if k not in exclude]
    target = rng.random() * sum(table[k] for k in keys)
    for key in keys:
        target -= table[key]
        if target < 0:
            return key
    return keys[-1]  # float rounding of the last sum


class ReplyTask:
    """The source grammar and the reply grammar, with exact reply probabilities."""

    def sample_email(self, rng: np.random.Generator) -> Email:
        recipient = _draw(rng, NAMES)
        sender = _draw(rng, NAMES, exclude=(recipient,))
        count = _draw(rng, SENTENCE_COUNTS)
        return Email(recipient, sender, tuple(self._sentence(rng) for _ in range(count)))

    def _sentence(self, rng: np.random.Generator) -> Sentence:
        kind = _draw(rng, KINDS)
        if kind == "order":
            first = _draw(rng, ITEMS)
            return Sentence(kind, (("first", first), ("second", _draw(rng, ITEMS, (first,)))))
        key = "day" if kind in ("meet", "moved") else "item"
        return Sentence(kind, ((key, _draw(rng, DAYS if key == "day" else ITEMS)),))

    def sample_reply(self, email: Email, rng: np.random.Generator) -> tuple[str, ...]:
        """One reply drawn from its true distribution (words, no BOS/EOS)."""
        words = ["hi", email.sender, ","]
        for sentence in email.sentences:
            slots = dict(sentence.slots)
            words += _draw(rng, REPLY_TABLES[sentence.kind]).format(**slots).split()
        return (*words, *_draw(rng, SIGN_OFFS).format(name=email.recipient).split())

    def sample_pairs(self, n: int, seed: int) -> list[tuple[Email, tuple[str, ...]]]:
        """``n`` (email, reply) pairs from a seeded stream."""
        rng = np.random.default_rng(seed)
        pairs = []
        for _ in range(n):
            email = self.sample_email(rng)
            pairs.append((email, self.sample_reply(email, rng)))
        return pairs

    def one_sentence_emails(self, per_kind: int, seed: int) -> list[Email]:
        """``per_kind`` one-sentence emails of every kind, grouped in the order of KINDS,
        drawn from a seeded stream (the decoding experiments of notebook 11)."""
        rng = np.random.default_rng(seed)
        found: dict[str, list[Email]] = {kind: [] for kind in KINDS}
        while any(len(v) < per_kind for v in found.values()):
            email = self.sample_email(rng)
            if len(email.sentences) == 1 and len(found[email.kinds[0]]) < per_kind:
                found[email.kinds[0]].append(email)
        return [e for kind in KINDS for e in found[kind]]

    @staticmethod
    @lru_cache(maxsize=4096)
    def replies(email: Email) -> dict[tuple[str, ...], float]:
        """Every reply to ``email`` (words) with its exact probability; they sum to 1."""
        tables = [s.reply_table() for s in email.sentences]
        sign_offs = {tuple(t.format(name=email.recipient).split()): p for t, p in SIGN_OFFS.items()}
        out = {}
        for parts in itertools.product(*(t.items() for t in tables), sign_offs.items()):
            words = ("hi", email.sender, ",", *(w for sentence, _ in parts for w in sentence))
            out[words] = math.prod(p for _, p in parts)
        return out

    def log_prob(self, email: Email, reply: Sequence[str] | str) -> float:
        """Exact natural-log probability of ``reply`` (words, no BOS/EOS); -inf if impossible."""
        words = tuple(reply.split()) if isinstance(reply, str) else tuple(reply)
        p = self.replies(email).get(words, 0.0)
        return math.log(p) if p > 0 else -math.inf

    def mode(self, email: Email) -> tuple[tuple[str, ...], float]:
        """The most likely reply and its probability."""
        replies = self.replies(email)
        best = max(replies, key=lambda reply: replies[reply])
        return best, replies[best]

    def next_word_probs(self, email: Email, prefix: Sequence[str] | str) -> dict[str, float]:
        """The true distribution of the word after ``prefix`` of a reply ("<EOS>": the end)."""
        prefix = tuple(prefix.split()) if isinstance(prefix, str) else tuple(prefix)
        mass: dict[str, float] = {}
        for words, p in self.replies(email).items():
            if words[: len(prefix)] == prefix:
                word = words[len(prefix)] if len(words) > len(prefix) else END
                mass[word] = mass.get(word, 0.0) + p
        total = sum(mass.values())
        if total == 0:
            raise ValueError(
                f"prefix: no reply to {email.text()!r} starts with {' '.join(prefix)!r}"
            )
        return {w: p / total for w, p in sorted(mass.items(), key=lambda kv: -kv[1])}

    def entropy(self, email: Email) -> tuple[float, float]:
        """(entropy of the replies in nats, expected number of predicted tokens with EOS)."""
        replies = self.replies(email).items()
        return (
            -sum(p * math.log(p) for _, p in replies),
            sum(p * (len(w) + 1) for w, p in replies),
        )

    def floor(self, emails: Sequence[Email]) -> float:
        """Conditional entropy per predicted reply token over ``emails`` (nats): the loss an
        exact model has on average; no model's expected loss is lower."""
        stats = [self.entropy(e) for e in emails]
        return sum(h for h, _ in stats) / sum(n for _, n in stats)

    def pairs_loss(self, pairs: Sequence[tuple[Email, Sequence[str]]]) -> float:
        """The true task's own loss on these very pairs, nats per predicted token."""
        nll = -sum(self.log_prob(e, r) for e, r in pairs)
        return nll / sum(len(r) + 1 for _, r in pairs)

    def judge(self, email: Email, reply: Sequence[str] | str) -> Judgement:
        words = tuple(reply.split()) if isinstance(reply, str) else tuple(reply)
        log_p = self.log_prob(email, words)
        mode, p_mode = self.mode(email)
        regret = math.log(p_mode) - log_p if log_p > -math.inf else math.inf
        return Judgement(log_p > -math.inf, log_p, words == mode, regret)

    @staticmethod
    def vocabulary() -> list[str]:
        """Every word of a source or a reply, sorted (no special tokens)."""
        texts = [
            *SOURCE_TEMPLATES.values(),
            *SIGN_OFFS,
            *(t for table in REPLY_TABLES.values() for t in table),
        ]
        words = {w for text in texts for w in text.split() if not w.startswith("{")}
        words |= {"hi", "thanks", *NAMES, *ITEMS, *DAYS}
        return sorted(words)


def reply_tokenizer() -> WordTokenizer:
    """The word tokenizer of the reply task (``<PAD>`` 0, ``<BOS>`` 1, ``<EOS>`` 2)."""
    return WordTokenizer(ReplyTask.vocabulary())


def encode_pairs(tokenizer, pairs) -> list[tuple[list[int], list[int]]]:
    """(email, reply) pairs as (source ids, target ids), each ``<BOS> ... <EOS>``."""
    return [(tokenizer.encode(email.words()), tokenizer.encode(reply)) for email, reply in pairs]
