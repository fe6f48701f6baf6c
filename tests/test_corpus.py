"""The email grammar: exact probabilities, the decks' dependencies, splits and entropy."""

import math
from collections import Counter

import numpy as np
import pytest

from attnbook.corpus import DEFAULT_GRAMMAR, EOS, EmailGrammar, make_splits

GRAMMAR = DEFAULT_GRAMMAR


def samples(n, seed=0, grammar=GRAMMAR):
    rng = np.random.default_rng(seed)
    return [grammar.sample_with_log_prob(rng) for _ in range(n)]


def tiny_grammar():
    """Small enough to list every email: one object, one container, few names and items."""
    return EmailGrammar(
        names={"anna": 0.6, "ben": 0.4},
        verbs={"send": 0.7, "print": 0.3},
        items={"report": 0.5, "slides": 0.3, "notes": 0.2},
        days={"monday": 0.5, "friday": 0.5},
        times={"nine": 0.5, "noon": 0.5},
        objects={"folder": 1.0},
        containers={"drawer": 1.0},
        object_adjectives={"folder": {"thick": 0.6, "big": 0.4}},
        container_adjectives={"drawer": {"full": 0.6, "small": 0.4}},
        greeted_continue=(0.0,),
        bare_continue=(0.3, 0.0),
    )


def all_emails(grammar):
    """Every email of a grammar, found by walking its next-word distributions."""
    done, stack = [], [[]]
    while stack:
        prefix = stack.pop()
        for word in grammar.next_word_probs(prefix):
            (done if word == EOS else stack).append(prefix if word == EOS else prefix + [word])
    return done


def test_log_prob_equals_the_product_of_the_sampled_choices():
    for words, log_p in samples(300):
        assert math.isfinite(log_p), words
        assert GRAMMAR.log_prob(words) == pytest.approx(log_p, abs=1e-9), words
        assert GRAMMAR.explain(words) == ""


def test_probabilities_of_a_small_grammar_sum_to_one():
    grammar = tiny_grammar()
    emails = all_emails(grammar)
    assert len(emails) == len({tuple(e) for e in emails}), "two derivations of one email"
    total = sum(math.exp(grammar.log_prob(e)) for e in emails)
    assert total == pytest.approx(1.0, abs=1e-9)


def test_frequent_emails_appear_as_often_as_their_probability_says():
    n = 20000
    counts = Counter(tuple(words) for words, _ in samples(n, seed=3))
    for email, count in counts.most_common(5):
        p = math.exp(GRAMMAR.log_prob(email))
        sigma = math.sqrt(n * p * (1 - p))
        assert abs(count - n * p) < 4 * sigma, (email, count, n * p)


@pytest.mark.parametrize(
    ("email", "word"),
    [
        ("hi anna , please send the memo . thanks , anna .", "'memo'"),  # unknown word
        ("hi anna , please send the report . thanks , ben .", "'ben'"),  # wrong name
        ("please send the report before the slides . slides first , report second .", "'slides'"),
        ("send the report .", "'the'"),  # terse form has no article
        ("send report . thanks", "'thanks'"),  # a bare email has no sign-off
        ("hi anna , send report . thanks , anna . send", "'send'"),  # words after the end
    ],
)
def test_impossible_emails_get_minus_infinity_and_a_reason_naming_the_word(email, word):
    assert GRAMMAR.log_prob(email) == -math.inf
    reason = GRAMMAR.explain(email)
    assert word in reason and "expects" in reason, reason


def test_an_email_cut_short_has_no_end_and_says_what_was_expected():
    for email in ("hi anna , please send the report", "please send the", ""):
        assert GRAMMAR.log_prob(email) == -math.inf
        assert "expects" in GRAMMAR.explain(email)


def test_sign_off_repeats_the_greeting_name():
    greeted = 0
    for words, _ in samples(2000, seed=1):
        if words[0] in GRAMMAR.greetings:
            greeted += 1
            assert words[1] in GRAMMAR.names and words[-2] == words[1], words
    assert greeted > 1000


def test_order_sentence_follows_before_and_after():
    seen = Counter()
    for words, _ in samples(3000, seed=2):
        for i, w in enumerate(words):
            if w in ("before", "after"):
                a, b = words[i - 1], words[i + 2]
                first, second = (a, b) if w == "before" else (b, a)
                assert words[i + 4 : i + 10] == [first, "first", ",", second, "second", "."]
                assert a != b
                seen[w] += 1
    assert seen["before"] > 50 and seen["after"] > 50


def test_the_adjective_after_it_belongs_to_one_of_the_two_nouns():
    referents = Counter()
    for words, _ in samples(3000, seed=4):
        for i, w in enumerate(words):
            if w == "my":
                obj, container, adjective = words[i + 1], words[i + 7], words[i + 12]
                assert words[i + 8 : i + 12] == ["because", "it", "was", "too"]
                if adjective in GRAMMAR.object_adjectives[obj]:
                    referents["object"] += 1
                else:
                    assert adjective in GRAMMAR.container_adjectives[container], words
                    referents["container"] += 1
    assert referents["object"] > 50 and referents["container"] > 50


def test_please_send_the_is_a_common_prefix_and_lengths_vary():
    emails = [words for words, _ in samples(2000, seed=5)]
    texts = [" ".join(w) for w in emails]
    assert sum("please send the" in t for t in texts) > 0.3 * len(texts)
    assert any(t == "send report ." for t in texts)  # Message B as a whole email
    lengths = np.array([len(w) for w in emails])
    assert lengths.min() <= 4 and lengths.max() >= 40
    assert 8 <= np.median(lengths) <= 40
    probs = GRAMMAR.next_word_probs("please send the")
    assert sum(probs.values()) == pytest.approx(1.0) and "report" in probs


def test_vocabulary_is_sorted_and_covers_every_sampled_word():
    vocabulary = GRAMMAR.vocabulary()
    assert vocabulary == sorted(set(vocabulary)) and 80 <= len(vocabulary) <= 200
    used = {w for words, _ in samples(3000, seed=6) for w in words}
    assert used <= set(vocabulary)
    tiny = tiny_grammar()
    assert tiny.vocabulary() == sorted({w for e in all_emails(tiny) for w in e})


def test_a_table_that_does_not_sum_to_one_is_rejected():
    with pytest.raises(ValueError, match="names"):
        EmailGrammar(names={"anna": 0.5})


def test_splits_are_deterministic_and_independent():
    a = make_splits(seed=0, n_train=300, n_val=100, n_test=100)
    b = make_splits(seed=0, n_train=300, n_val=100, n_test=100)
    c = make_splits(seed=1, n_train=300, n_val=100, n_test=100)
    assert a == b and a != c
    assert [len(a[k]) for k in ("train", "val", "test")] == [300, 100, 100]
    assert a["val"] != a["train"][:100] and a["val"] != a["test"]
    # Independent draws: a held-out email is in train only as often as its probability says.
    train = {tuple(e) for e in a["train"]}
    held_out = a["val"] + a["test"]
    shared = sum(tuple(e) in train for e in held_out)
    chance = [1 - (1 - math.exp(GRAMMAR.log_prob(e))) ** 300 for e in held_out]
    expected, spread = sum(chance), math.sqrt(sum(c * (1 - c) for c in chance))
    assert shared <= expected + 4 * spread + 1, (shared, expected)


def test_entropy_estimate_is_stable_across_seeds():
    h0, se0 = GRAMMAR.entropy_per_token(n_samples=5000, seed=0)
    h1, se1 = GRAMMAR.entropy_per_token(n_samples=5000, seed=1)
    assert 0.3 < h0 < 1.5 and 0 < se0 < 0.01
    assert abs(h0 - h1) < 4 * math.hypot(se0, se1)
