"""Search text: folding, stemming, scripts, queries, matching and highlighting."""
from __future__ import annotations

import pytest

from chalicelib.search.text import highlight, matches, parse_search_query, sequence_of, terms_of


@pytest.mark.parametrize("query, text", [
    ("deploy", "We deployed it yesterday"),          # inflections
    ("messages", "one message"),
    ("running", "he runs"),
    ("CAFE", "un café crème"),                       # case and accents fold
    ("café", "CAFE"),
    ("naïve", "naive"),
    ("Straße", "strasse"),                           # casefold: ß = ss
    ("ﬁle", "file"),                                 # compatibility forms (NFKD)
    ("сообщения", "Новое сообщение"),                # Cyrillic words, stemmed
    ("ёлка", "елка"),
    ("الكتاب", "قرأت كتاب"),                          # Arabic, stemmed (the article goes)
    ("مُحَمَّد", "محمد"),                               # Arabic vowel marks fold
    ("東京", "東京都に行きました"),                      # Japanese: bigrams
    ("行きました", "東京都に行きました"),
    ("検索", "全文検索エンジン"),
    ("书", "一本书"),                                  # Chinese: one character
    ("搜索引擎", "这是一个搜索引擎。"),
    ("검색", "한국어 검색 엔진"),                        # Korean
])
def test_a_word_finds_the_forms_a_reader_expects(query, text):
    assert matches(parse_search_query(query), text, "")


@pytest.mark.parametrize("query, text", [
    ("deploy", "display"),
    ("йогурт", "иогурт"),                            # й is a letter of its own
    ("ガス", "カス"),                                   # kana voicing is not an accent
    ("東京", "京東"),                                  # CJK order matters
    ("搜索引擎", "引擎搜索"),
    ("cat", "category"),                              # words, not substrings
])
def test_what_differs_stays_different(query, text):
    assert not matches(parse_search_query(query), text, "")


def test_words_are_anded_and_phrases_keep_their_order():
    text = "the quick brown fox jumps"
    assert matches(parse_search_query("fox quick"), text, "")
    assert not matches(parse_search_query("fox cat"), text, "")
    assert matches(parse_search_query('"quick brown"'), text, "")
    assert matches(parse_search_query('"Quick Browns" jumping'), text, "")
    assert not matches(parse_search_query('"brown quick"'), text, "")
    assert not matches(parse_search_query('"quick fox"'), text, "")
    # an unclosed quote is a phrase to the end
    assert matches(parse_search_query('fox "brown fox'), text, "")
    assert not matches(parse_search_query('"fox brown'), text, "")


def test_the_topic_is_searched_too_but_a_phrase_stays_in_one_of_them():
    query = parse_search_query("release plans")
    assert matches(query, "the plans are ready", "Release 2.0")
    phrase = parse_search_query('"ready release"')
    assert not matches(phrase, "the plans are ready", "release 2.0")


def test_a_query_of_punctuation_matches_nothing():
    query = parse_search_query(' "" -- ?! ')
    assert query.is_empty
    assert not matches(query, "-- ?!", "")


def test_a_split_word_is_a_phrase_of_its_pieces():
    query = parse_search_query("e-mail")
    assert query.phrases == (("e", "mail"),)
    assert matches(query, "send an E-Mail", "")
    assert not matches(query, "mail me an e", "")


def test_cjk_runs_index_bigrams_and_characters():
    assert sequence_of("東京都") == ["東京", "京都"]
    assert terms_of("東京都") == {"東京", "京都", "東", "京", "都"}
    assert terms_of("Tokyo東京") == {"tokyo", "東京", "東", "京"}


def test_highlight_wraps_matched_words_outside_tags_and_escapes_the_topic():
    query = parse_search_query('café "running fast"')
    content, subject = highlight(
        query, '<p>I was <strong>Running</strong> fast &amp; <a href="http://cafe.example">'
               'cafés</a></p>', "café <plans> & more")
    assert content == (
        '<p>I was <strong><span class="highlight">Running</span></strong> '
        '<span class="highlight">fast</span> &amp; <a href="http://cafe.example">'
        '<span class="highlight">cafés</span></a></p>')
    assert subject == '<span class="highlight">café</span> &lt;plans&gt; &amp; more'


def test_highlight_marks_cjk_matches_and_leaves_other_text_alone():
    content, subject = highlight(parse_search_query("東京"), "<p>東京都の京</p>", "no match")
    assert content == '<p><span class="highlight">東京</span>都の京</p>'
    assert subject == "no match"
