"""The edit history's HTML diff: inserted and deleted words highlighted, markup kept."""
from __future__ import annotations

from chalicelib.rules.html_diff import highlight_html_differences

INS, DEL = '<span class="highlight_text_inserted">', '<span class="highlight_text_deleted">'


def test_unchanged_html_is_returned_as_it_is():
    html = "<p>same <strong>words</strong></p>"
    assert highlight_html_differences(html, html) == f"<div>{html}</div>"


def test_replaced_words_show_what_went_and_what_came():
    assert highlight_html_differences("<p>Hello world</p>", "<p>Howdy world</p>") == \
        f"<div><p>{DEL}Hello</span>{INS}Howdy</span> world</p></div>"


def test_added_markup_is_kept_and_removed_markup_dropped():
    old, new = "<p>plain text</p>", "<p>plain <em>new</em> text</p>"
    assert highlight_html_differences(old, new) == \
        f"<div><p>plain <em>{INS}new</span></em> text</p></div>"
    # removed paragraphs leave their words, highlighted, and no stray tags
    diff = highlight_html_differences("<p>a</p><p>gone</p>", "<p>a</p>")
    assert diff == f"<div><p>a</p>{DEL}gone</span></div>"


def test_whitespace_only_changes_add_no_empty_spans():
    assert INS not in highlight_html_differences("<p>a b</p>", "<p>a  b</p>")
