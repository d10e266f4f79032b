"""RFC 6570 playground URL templates (chalicelib.rules.url_template)."""
from __future__ import annotations

import pytest

from chalicelib.rules.url_template import (
    UrlTemplateError,
    check_playground_url_template,
    template_variables,
)

INVALID = "The URL template is not valid."
MISSING_CODE = 'The URL template needs the variable "code"'
ONLY_CODE = 'The URL template may use no variable except "code"'


@pytest.mark.parametrize("template", [
    "https://python.example.com?code={code}",
    "http://example.com/run/{code}",
    "HTTPS://example.com/#{code}",
    "https://example.com:8080/p?lang=py&c={code}&x=1",
    "https://example.com/%20a?c={code}",
    "https://example.com/{code}/again/{code}",   # one variable, used twice
    "https://exämple.com/ü?c={code}",            # RFC 6570 allows non-ASCII literals
    "https://example.com?code={+code}",          # level 2 and 3 operators
    "https://example.com/run{?code}",
    "https://example.com{?code}",                # right after the host: path, query, fragment
    "https://example.com{/code}",
    "https://example.com{#code}",
    "https://example.com/p{;code}",
    "https://example.com/p?x=1{&code}",
    "https://example.com/p{.code}",
    "https://example.com/?c={code:3}",           # level 4 modifiers
    "https://example.com/{/code*}",
    "https://example.com/{code,code}",           # a list naming only code
])
def test_valid_templates_are_returned_unchanged(template):
    assert check_playground_url_template(template) == template


@pytest.mark.parametrize("template", [
    "https://example.com?code={code",            # unclosed
    "https://example.com?code=code}",            # closes nothing
    "https://example.com?code={{code}}",         # nested
    "https://example.com?code={}",               # empty expression
    "https://example.com{.code}",                # operators that would extend the host
    "https://example.com{;code}",
    "https://example.com{&code}",
    "https://example.com{+code}",
    "https://example.com{code}",
    "https://example.com:{code}/",
    "https://example.com?c={=code}",             # reserved operators
    "https://example.com?c={!code}",
    "https://example.com?c={@code}",
    "https://example.com?c={|code}",
    "https://example.com?c={,code}",
    "https://example.com?c={code:0}",            # prefix lengths are 1 to 9999
    "https://example.com?c={code:10000}",
    "https://example.com?c={code:x}",
    "https://example.com?c={code**}",
    "https://example.com?c={code:3*}",
    "https://example.com?c={code,}",             # empty list member
    "https://example.com?c={+}",
    "https://example.com?c={co de}",
    "https://example.com?c={code.}",
    "https://example.com/a b?c={code}",          # characters not allowed in literals
    "https://example.com/\"?c={code}",
    "https://example.com/<?c={code}",
    "https://example.com/|?c={code}",
    "https://example.com/\n?c={code}",
    "https://example.com/%zz?c={code}",          # % not starting an encoding
    "https://example.com/%2?c={code}",
    "ftp://example.com/{code}",                  # not http(s)
    "javascript:alert({code})",
    "//example.com/{code}",
    "{code}",
    "https://{code}",                            # the host must be literal
    "https://{code}.example.com/",
    "https:///path?c={code}",                    # no host
    "",
])
def test_invalid_templates(template):
    with pytest.raises(UrlTemplateError) as error:
        check_playground_url_template(template)
    assert str(error.value) == INVALID


@pytest.mark.parametrize("template", [
    "https://example.com/",
    "https://example.com/?c={source}",
    "https://example.com/?c={Code}",             # names are case-sensitive
])
def test_code_variable_is_required(template):
    with pytest.raises(UrlTemplateError) as error:
        check_playground_url_template(template)
    assert str(error.value) == MISSING_CODE


@pytest.mark.parametrize("template", [
    "https://example.com/?c={code}&lang={lang}",
    "https://example.com/{a}/{b}/{code}",
    "https://example.com/?c={code,x}",           # a list with another variable
    "https://example.com/{?code,lang}",
])
def test_code_must_be_the_only_variable(template):
    with pytest.raises(UrlTemplateError) as error:
        check_playground_url_template(template)
    assert str(error.value) == ONLY_CODE


def test_template_variables_in_order():
    assert template_variables("x{a}y{b.c}z{%41}{a}") == ["a", "b.c", "%41", "a"]
    assert template_variables("https://example.com/") == []
    assert template_variables("{?a,b:3}{/c*}{+d}") == ["a", "b", "c", "d"]
