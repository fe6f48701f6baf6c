"""Word and character tokenizers: special ids, round trips, errors, JSON."""

import pytest

from attnbook.lm.corpus import DEFAULT_GRAMMAR, make_splits
from attnbook.lm.tokenizer import CharTokenizer, UnknownTokenError, WordTokenizer


def test_special_ids_come_first():
    tok = WordTokenizer()
    assert (tok.pad_id, tok.bos_id, tok.eos_id) == (0, 1, 2)
    assert tok.id_to_token[:3] == ["<PAD>", "<BOS>", "<EOS>"]
    assert tok.vocab_size == len(DEFAULT_GRAMMAR.vocabulary()) + 3
    assert all(tok.token_to_id[t] == i for i, t in enumerate(tok.id_to_token))


def test_word_round_trip_on_the_corpus():
    tok = WordTokenizer()
    for words in make_splits(seed=0, n_train=500, n_val=0, n_test=0)["train"]:
        ids = tok.encode(words)
        assert ids[0] == tok.bos_id and ids[-1] == tok.eos_id and len(ids) == len(words) + 2
        assert tok.decode(ids) == " ".join(words)
        assert tok.encode(" ".join(words)) == ids


def test_encode_flags_and_decode_with_specials():
    tok = WordTokenizer()
    ids = tok.encode("send report .", add_bos=False, add_eos=False)
    assert len(ids) == 3
    assert tok.decode([0, 1, *ids, 2], skip_special=False) == "<PAD> <BOS> send report . <EOS>"


def test_unknown_word_names_the_word_and_its_position():
    tok = WordTokenizer()
    with pytest.raises(UnknownTokenError, match=r"'memo' at position 3") as info:
        tok.encode("please send the memo .")
    assert isinstance(info.value, KeyError) and isinstance(info.value, ValueError)
    with pytest.raises(ValueError, match="<EOS>"):
        tok.encode(["send", "<EOS>"])


def test_char_tokenizer_round_trips_utf8(tmp_path):
    text = "Grüße, naïve café!\nZweite Zeile — ok."
    tok = CharTokenizer.from_text(text)
    assert tok.decode(tok.encode(text)) == text
    assert tok.id_to_token[3:] == sorted(set(text))
    with pytest.raises(UnknownTokenError, match=r"'Q' at position 2"):
        tok.encode("okQ")


@pytest.mark.parametrize("tok", [WordTokenizer(), CharTokenizer.from_text("abc d\n")])
def test_save_and_load_json(tmp_path, tok):
    path = tmp_path / "tok.json"
    tok.save(path)
    assert type(tok).load(path) == tok
