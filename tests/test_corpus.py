"""The email grammar: exact probabilities, the decks' dependencies, splits and entropy."""

import math
from collections import Counter

import numpy as np
import pytest

from attnbook.lm.corpus import DEFAULT_GRAMMAR, EOS, EmailGrammar, make_splits
from attnbook.lm.tokenizer import WordTokenizer

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


# -- clean sentences: every email reads as written English, production by production ---------
PUNCTUATION = {",", ".", "?"}
ENDS = {".", "?"}


def sentence_problems(words, grammar=GRAMMAR):
    """What is wrong with an email as text ([] when nothing): doubled punctuation or words,
    empty or unknown tokens, special tokens inside, an empty sentence, a missing full stop."""
    problems = []
    vocabulary = set(grammar.vocabulary())
    if not words:
        return ["the email is empty"]
    for i, word in enumerate(words):
        if not word or word != word.strip() or " " in word:
            problems.append(f"word {i} {word!r} is an empty or blank slot")
        elif word not in vocabulary:
            problems.append(f"word {i} {word!r} is not in the vocabulary")
    for i, (a, b) in enumerate(zip(words, words[1:])):
        if a in PUNCTUATION and b in PUNCTUATION:
            problems.append(f"words {i}, {i + 1}: {a!r} {b!r} is doubled punctuation")
        elif a == b:
            problems.append(f"words {i}, {i + 1}: {a!r} twice in a row")
    if words[0] in PUNCTUATION:
        problems.append(f"the email opens with {words[0]!r}")
    if words[-1] not in ENDS:
        problems.append(f"the email ends with {words[-1]!r}, not a full stop or question mark")
    return problems


def one_sentence_grammar(**tables):
    """Bare emails of exactly one sentence: enumerating them lists every production."""
    return EmailGrammar(greeted_share=0.0, bare_continue=(0.0,), **tables)


def test_the_helper_catches_the_old_double_full_stop():
    assert sentence_problems("the meeting is on wednesday . .".split()) == [
        "words 5, 6: '.' '.' is doubled punctuation"
    ]
    assert sentence_problems("send report".split())[-1].startswith("the email ends with")
    assert "blank slot" in sentence_problems(["send", "", "."])[0]


def test_sampled_emails_are_clean_sentences_and_end_once():
    tokenizer = WordTokenizer()
    for words, log_p in samples(20000, seed=8):
        assert not sentence_problems(words), (" ".join(words), sentence_problems(words))
        assert EOS not in words and math.isfinite(log_p)
        ids = tokenizer.encode(words)
        assert ids[-1] == tokenizer.eos_id and ids.count(tokenizer.eos_id) == 1
        assert ids.count(tokenizer.bos_id) == 1 and tokenizer.pad_id not in ids
        assert EOS in GRAMMAR.next_word_probs(words), "a finished email must be able to end"
        if words[0] in GRAMMAR.greetings:  # the sign-off is the last thing: the end is certain
            assert GRAMMAR.next_word_probs(words) == {EOS: 1.0}


def test_every_production_with_every_word_is_a_clean_sentence():
    emails = all_emails(one_sentence_grammar())
    seen = {w for e in emails for w in e}
    sign_off_only = {"thanks", "thank", "see", "soon"} | set(GRAMMAR.names) | set(GRAMMAR.greetings)
    assert seen == set(GRAMMAR.vocabulary()) - sign_off_only, "an entry of a table is never used"
    assert sum(math.exp(GRAMMAR.log_prob(e)) for e in emails) < 1.0  # a share of all emails
    for email in emails:
        assert not sentence_problems(email), (" ".join(email), sentence_problems(email))
        # One stop per sentence; the order sentence is followed by "X first , Y second ."
        assert sum(w in ENDS for w in email) == (2 if "first" in email else 1), email
    starts = Counter(e[0] for e in emails)
    assert set(starts) == set(GRAMMAR.starters)
    meetings = [e for e in emails if e[0] == "the"]
    assert {len(e) for e in meetings} == {6, 8}, "the meeting is on DAY . / ... at TIME ."


def test_greetings_sign_offs_and_sentence_joins_are_clean():
    grammar = EmailGrammar(
        names={"anna": 1.0}, items={"report": 0.5, "slides": 0.5}, days={"monday": 1.0},
        times={"ten": 1.0}, objects={"box": 1.0}, containers={"bag": 1.0},
        object_adjectives={"box": {"big": 1.0}}, container_adjectives={"bag": {"full": 1.0}},
        greeted_continue=(1.0, 0.0), bare_continue=(1.0, 0.0),
    )  # fmt: skip
    emails = all_emails(grammar)
    assert len(emails) > 1000
    for email in emails:
        assert not sentence_problems(email, grammar), (
            " ".join(email),
            sentence_problems(email, grammar),
        )
    assert {e[-3] for e in emails if e[0] in grammar.greetings} == {","}  # "..., anna ."
