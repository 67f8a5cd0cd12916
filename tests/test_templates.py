"""Template loading and validation, the sandbox, and the fast render path."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from nligen.errors import ConditionError, RenderError, TemplateError
from nligen.render import Renderer
from nligen.slots import SlotValue
from nligen.templates import load_templates

GOOD = """
id: t.good
slots:
  a: {lexicon: people}
  x: {range: [1, 5]}
premise: "{{ a }} has {{ x }} apples."
hypothesis: "{{ a }} has apples."
label: entailment
"""


def write(tmp_path: Path, text: str, name: str = "t.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def load_error(tmp_path, text, exc=TemplateError) -> str:
    path = write(tmp_path, text)
    with pytest.raises(exc) as info:
        load_templates([path])
    return str(info.value)


def test_good_template_loads(tmp_path):
    ts = load_templates([write(tmp_path, GOOD)])
    assert [t.id for t in ts.templates] == ["t.good"]


def test_errors_name_file_template_and_field(tmp_path):
    msg = load_error(tmp_path, GOOD.replace("label: entailment", "label: entails"))
    assert "t.yaml" in msg and "t.good" in msg and "label" in msg and "entails" in msg


def test_malformed_yaml_names_file_and_line(tmp_path):
    msg = load_error(tmp_path, "id: x\nslots: [unclosed\n")
    assert "t.yaml" in msg and "malformed YAML" in msg and "line" in msg


@pytest.mark.parametrize("change, field", [
    (("premise:", "premis:"), "premis"),
    (("{{ a }} has apples.", "{{ b }} has apples."), "hypothesis"),
    (("{lexicon: people}", "{lexicon: people, colour: red}"), "slots.a"),
    (("{range: [1, 5]}", "{range: [5, 1]}"), "slots.x"),
    (("id: t.good", "id: 'bad id!'"), "id"),
])
def test_schema_errors(tmp_path, change, field):
    msg = load_error(tmp_path, GOOD.replace(*change))
    assert field in msg


LABELLED = GOOD.replace("label: entailment", """label:
  entailment: x > 2
  contradiction: x == 1
  otherwise: neutral""")


@pytest.mark.parametrize("keys", [
    "match_labels: [contradiction]",  # no 'labels' to add to
    "labels: [entailment, neutral]\nmatch_labels: [neutral]",  # drawn anyway
    "labels: [entailment, neutral]\nmatch_labels: [maybe]",
])
def test_match_labels_must_add_a_label_the_rules_give(tmp_path, keys):
    assert "match_labels" in load_error(tmp_path, LABELLED + keys + "\n")


def test_match_labels_are_drawn_only_when_asked(tmp_path):
    ts = load_templates([write(tmp_path, LABELLED + "labels: [entailment, neutral]\n"
                                         "match_labels: [contradiction]\n")])
    t = ts.templates[0]
    assert t.draws_label("entailment") and not t.draws_label("contradiction")
    assert t.draws_label("contradiction", requested=True)


def test_condition_that_calls_a_function_is_refused(tmp_path):
    text = GOOD.replace("label: entailment",
                        "label: {entailment: \"__import__('os').system('id') == 0\"}")
    msg = load_error(tmp_path, text, ConditionError)
    assert "t.good" in msg and "function calls are not allowed" in msg


def test_condition_with_unknown_slot_is_refused(tmp_path):
    text = GOOD.replace("label: entailment", "label: {entailment: y > 2, otherwise: neutral}")
    msg = load_error(tmp_path, text, ConditionError)
    assert "unknown name" in msg and "y" in msg


@pytest.mark.parametrize("payload", [
    "{{ a.__class__.__mro__[1].__subclasses__() }}",
    "{{ ''.__class__.__base__ }}",
    "{{ a._fields }}",
    "{% for i in range(10) %}x{% endfor %}",
    "{{ cycler.__init__.__globals__ }}",
    "{{ lipsum.__globals__['os'].popen('id').read() }}",
    "{% set x = 1 %}{{ x }}",
    "{{ 'x' * 100000000 }}",
    "{{ 9 ** 9 ** 9 }}",
    "{% include '/etc/passwd' %}",
    "{{ config }}",
    "{{ range(5) }}",
])
def test_malicious_jinja_is_refused(tmp_path, payload):
    text = GOOD.replace('"{{ a }} has apples."', repr(payload).replace("\\\\", "\\"))
    with pytest.raises(TemplateError):
        ts = load_templates([write(tmp_path, text)])
        # Anything that loads must still fail safely when rendered.
        t = ts.templates[0]
        t.hypotheses[0].text.render({"a": SlotValue("a", "Ann"), "x": SlotValue("x", "1")})


def test_render_error_is_a_template_error():
    r = Renderer()
    text = r.compile("{{ missing }}", "here")
    with pytest.raises(RenderError, match="undefined"):
        text.render({})


def test_spans_point_at_slot_text():
    r = Renderer()
    text = r.compile("  {{ a|cap }} sees {{ b }} .", "here")
    out, spans = text.render({"a": SlotValue("a", "ann"), "b": SlotValue("b", "Bo")})
    assert out == "Ann sees Bo ."
    assert out[slice(*spans["a"][0])] == "Ann"
    assert out[slice(*spans["b"][0])] == "Bo"


_words = st.text(alphabet="abcdefgh ÄÖÜäöüß.", min_size=0, max_size=8)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_words, st.sampled_from(["a", "b"]),
                          st.sampled_from(["", "|cap", "|upper", "|lower|cap"])),
                min_size=1, max_size=4),
       _words, _words)
def test_fast_path_renders_exactly_like_jinja(parts, a_text, b_text):
    source = "".join(f"{lit}{{{{ {name}{filters} }}}}" for lit, name, filters in parts)
    r = Renderer()
    fast = r.compile(source, "here")
    assert fast._fast is not None
    slow = r.compile(source, "here")
    slow._fast = None  # force the Jinja path
    ctx = {"a": SlotValue("a", a_text), "b": SlotValue("b", b_text)}
    assert fast.render(ctx) == slow.render(ctx)
