"""Rendering template texts: Jinja2 in a sandbox, strict undefined, and slot spans.

Templates are untrusted input. Three layers keep them harmless:

1. a static whitelist of Jinja constructs: output expressions, filters (with
   arguments), ``if``/conditional expressions, comparisons, string concatenation, field
   access. No ``for``, ``set``, macros, includes, function calls or ``*``/``**``;
2. Jinja's :class:`ImmutableSandboxedEnvironment` (no ``_``-attributes, no mutation);
3. no globals: a template sees its slots, its variant axes and ``variant``, nothing else.

Each filter result remembers which slot it came from (:class:`Tagged`), and the
renderer records the character span of every slot in the output; records carry those
spans in their ``rationale``.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Mapping

from jinja2 import StrictUndefined, TemplateSyntaxError, Undefined, UndefinedError, nodes
from jinja2.exceptions import SecurityError, TemplateError as JinjaTemplateError
from jinja2.sandbox import ImmutableSandboxedEnvironment

from .errors import RenderError, TemplateError
from .slots import SlotValue

_OPEN, _MID, _CLOSE = "\ue000", "\ue001", "\ue002"
_MARK_RE = re.compile(f"{_OPEN}([^{_MID}]*){_MID}|{_CLOSE}")
_MAX_OUTPUT = 20_000
_MAX_DEPTH = 40

_ALLOWED_NODES: tuple[type, ...] = (
    nodes.Template, nodes.Output, nodes.TemplateData, nodes.Name, nodes.Getattr,
    nodes.Getitem, nodes.Filter, nodes.Const, nodes.Concat, nodes.CondExpr, nodes.If,
    nodes.Compare, nodes.Operand, nodes.And, nodes.Or, nodes.Not, nodes.Test, nodes.Add,
    nodes.Tuple, nodes.List, nodes.Keyword, nodes.Neg, nodes.Pos,
)


class Tagged(str):
    """A string that remembers the slot it was made from."""

    __slots__ = ("slot",)

    def __new__(cls, text: str, slot: str | None):
        obj = super().__new__(cls, text)
        obj.slot = slot
        return obj


def slot_of(value: Any) -> str | None:
    if type(value) is str:
        return None
    return value.slot if isinstance(value, Tagged) else getattr(value, "_slot_name", None)


def tag(text: str, like: Any) -> str:
    """Tag ``text`` with the slot of ``like`` (if any)."""
    slot = slot_of(like)
    return Tagged(text, slot) if slot else text


def capitalize_first(value: Any) -> str:
    """Upper-case the first character only ("den Kunden" -> "Den Kunden")."""
    text = str(value)
    return text[:1].upper() + text[1:]


def _wrap_filter(fn: Callable) -> Callable:
    """For the Jinja path: make a filter's result keep the slot tag of its input."""

    def wrapped(value, *args, **kwargs):
        result = fn(value, *args, **kwargs)
        if isinstance(result, str) and not isinstance(result, Tagged):
            return tag(result, value)
        return result

    wrapped.__name__ = getattr(fn, "__name__", "filter")
    return wrapped


class _Sandbox(ImmutableSandboxedEnvironment):
    def call(__self, __context, __obj, *args, **kwargs):  # noqa: N805 - Jinja's signature
        # Calls never appear in whitelisted templates; filters are applied by Jinja
        # itself, so any call that reaches here is an escape attempt.
        raise SecurityError("calls are not allowed in templates")


def renderable(value: Any, where: str | None = None) -> Any:
    """Only text, numbers and slot values are written: a method, a list or a mapping
    would print Python internals (and memory addresses, which differ between runs)."""
    if isinstance(value, (str, int, float, SlotValue)) and not isinstance(value, bool):
        return value
    if isinstance(value, Undefined):
        return value
    raise RenderError(f"cannot write a {type(value).__name__} into a text", where)


def _finalize(value: Any) -> Any:
    renderable(value)
    slot = slot_of(value)
    if slot is None:
        return value
    return f"{_OPEN}{slot}{_MID}{value}{_CLOSE}"


class Renderer:
    """Compiles and renders template texts with a fixed set of filters."""

    def __init__(self, filters: Mapping[str, Callable] | None = None):
        env = _Sandbox(
            undefined=StrictUndefined,
            autoescape=False,
            finalize=_finalize,
            keep_trailing_newline=False,
        )
        env.globals.clear()
        env.filters.clear()
        env.tests.clear()
        env.tests.update({"none": lambda v: v is None})
        all_filters = {"cap": capitalize_first, "upper": lambda v: str(v).upper(),
                       "lower": lambda v: str(v).lower()}
        all_filters.update(filters or {})
        env.filters.update({name: _wrap_filter(fn) for name, fn in all_filters.items()})
        self.env = env
        self.raw_filters = dict(all_filters)  # the fast path tracks slots itself
        self._memos: dict[tuple, dict] = {}  # expression -> its results by value (fast path)

    def memo(self, expr: tuple) -> dict:
        """The table of an expression's results, shared by the texts that write it."""
        table = self._memos.get(expr)
        if table is None:
            table = self._memos[expr] = {}
        return table

    def compile(self, source: str, where: str) -> "CompiledText":
        if not isinstance(source, str):
            raise TemplateError(f"expected a text, got {type(source).__name__}", where)
        if any(ch in source for ch in (_OPEN, _MID, _CLOSE)):
            raise TemplateError("text contains reserved private-use characters", where)
        if len(source) > _MAX_OUTPUT:
            raise TemplateError(f"text longer than {_MAX_OUTPUT} characters", where)
        try:
            ast = self.env.parse(source)
        except TemplateSyntaxError as exc:
            raise TemplateError(f"Jinja syntax error: {exc.message} (line {exc.lineno})",
                                where) from None
        except (RecursionError, MemoryError, SyntaxError, ValueError):
            raise TemplateError("text nested too deeply", where) from None
        _check_nodes(ast, where)
        for flt in ast.find_all(nodes.Filter):
            if flt.name not in self.env.filters:
                raise TemplateError(
                    f"unknown filter {flt.name!r} (known: {', '.join(sorted(self.env.filters))})",
                    where,
                )
        names = {n.name for n in ast.find_all(nodes.Name) if n.ctx == "load"}
        fields: dict[str, set[str]] = {}
        for get in ast.find_all(nodes.Getattr):
            if isinstance(get.node, nodes.Name):
                fields.setdefault(get.node.name, set()).add(get.attr)
        plan = _fast_plan(ast)
        # A text with a fast plan never renders through Jinja: its Jinja template is only
        # made if it is asked for (compiling it took most of loading the Jamp templates).
        template = None if plan is not None else self._jinja(source, where)
        return CompiledText(source, template, where, names, fields, plan, self)

    def _jinja(self, source: str, where: str):
        try:
            return self.env.from_string(source)
        except (TemplateSyntaxError, JinjaTemplateError) as exc:
            raise TemplateError(f"Jinja error: {exc}", where) from None
        except (RecursionError, MemoryError, SyntaxError, ValueError):
            raise TemplateError("text nested too deeply", where) from None


def _check_nodes(node: nodes.Node, where: str, depth: int = 0) -> None:
    if depth > _MAX_DEPTH:
        raise TemplateError(f"text nested more than {_MAX_DEPTH} levels deep", where)
    if isinstance(node, nodes.Const) and isinstance(node.value, str) and any(
            ch in node.value for ch in (_OPEN, _MID, _CLOSE)):
        raise TemplateError("text contains reserved private-use characters", where)
    for child in node.iter_child_nodes():
        if not isinstance(child, _ALLOWED_NODES):
            kind = type(child).__name__
            hint = {
                "For": "loops", "Call": "function calls", "Mul": "'*'", "Pow": "'**'",
                "Assign": "'set'", "Macro": "macros", "Include": "includes",
                "Import": "imports", "FromImport": "imports", "Extends": "'extends'",
            }.get(kind, f"the construct {kind}")
            raise TemplateError(f"not allowed in templates: {hint}", where)
        _check_nodes(child, where, depth + 1)


def _fast_plan(ast: nodes.Template) -> list | None:
    """A plan for texts that are only literal text and ``{{ name|filter(args).field }}``
    expressions: rendered without Jinja's per-call machinery (same filters, same sandboxed
    attribute access). Anything else returns None and goes through Jinja."""
    if len(ast.body) == 0:
        return []
    if len(ast.body) != 1 or not isinstance(ast.body[0], nodes.Output):
        return None
    plan: list = []
    for node in ast.body[0].nodes:
        if isinstance(node, nodes.TemplateData):
            plan.append(("text", node.data))
            continue
        expr = _fast_expr(node)
        if expr is None:
            return None
        plan.append(("expr", expr))
    return plan


def _fast_expr(node: nodes.Node):
    if isinstance(node, nodes.Name):
        return ("name", node.name)
    if isinstance(node, nodes.Const) and isinstance(node.value, (str, int, float)):
        return ("const", node.value)
    if isinstance(node, nodes.Getattr):
        inner = _fast_expr(node.node)
        return None if inner is None else ("attr", inner, node.attr)
    if isinstance(node, nodes.Filter) and node.node is not None and not node.kwargs \
            and node.dyn_args is None and node.dyn_kwargs is None:
        inner = _fast_expr(node.node)
        args = [_fast_expr(a) for a in node.args]
        if inner is None or any(a is None for a in args):
            return None
        return ("filter", node.name, inner, args)
    return None


class CompiledText:
    __slots__ = ("source", "_template", "where", "names", "fields", "_fast", "_fast_text",
                 "parts", "_renderer")

    def __init__(self, source, template, where, names, fields, plan=None, renderer=None):
        self.source = source
        self._template = template
        self._renderer = renderer
        self.where = where
        self.names: set[str] = names  # variables the text reads
        self.fields: dict[str, set[str]] = fields  # slot -> fields read as slot.field
        self._fast, self._fast_text, self.parts = (
            _compile_plan(plan, renderer, where) if plan is not None else (None, None, None))

    @property
    def template(self):
        """The Jinja template (made when first asked for, for a text with a fast plan)."""
        if self._template is None:
            self._template = self._renderer._jinja(self.source, self.where)
        return self._template

    def render_text(self, context: Mapping[str, Any]) -> str:
        """Render; return the text (stripped) without its spans."""
        if self._fast_text is not None:
            try:
                return self._fast_text(context)
            except Exception as exc:
                self._raise(exc)
        return self.render(context)[0]

    def _raise(self, exc: Exception):
        """A fast path's failure as the RenderError it means (located in this text)."""
        try:
            raise exc
        except RenderError as exc:
            if exc.where:
                raise
            raise RenderError(exc.what, self.where) from None
        except SecurityError as exc:
            raise RenderError(f"forbidden operation: {exc}", self.where) from None
        except Exception as exc:
            raise RenderError(f"{type(exc).__name__}: {exc}", self.where) from None

    def render(self, context: Mapping[str, Any]) -> tuple[str, dict[str, list[list[int]]]]:
        """Render; return the text (stripped) and each slot's character spans in it."""
        if self._fast is not None:
            try:
                return self._fast(context)
            except Exception as exc:
                self._raise(exc)
        try:
            chunks, length = [], 0
            for chunk in self.template.generate(context):
                length += len(chunk)
                if length > _MAX_OUTPUT * 2:  # marks included
                    raise RenderError(f"output longer than {_MAX_OUTPUT} characters", self.where)
                chunks.append(chunk)
            marked = "".join(chunks)
        except SecurityError as exc:
            raise RenderError(f"forbidden operation: {exc}", self.where) from None
        except UndefinedError as exc:
            raise RenderError(f"undefined: {exc.message}", self.where) from None
        except RenderError as exc:
            if exc.where:
                raise
            raise RenderError(exc.what, self.where) from None
        except Exception as exc:  # a filter rejected its input, etc.
            raise RenderError(f"{type(exc).__name__}: {exc}", self.where) from None
        if len(marked) > _MAX_OUTPUT:
            raise RenderError(f"output longer than {_MAX_OUTPUT} characters", self.where)
        return strip_marks(marked)


def _root_name(expr) -> str | None:
    """The variable a filter chain starts from ({{ V|agree(S) }} -> V); None for field
    reads and constants (they render no slot, as on the Jinja path)."""
    if expr[0] == "name":
        return expr[1]
    if expr[0] == "filter":
        return _root_name(expr[2])
    return None


class TextPart(tuple):
    """A part of a text with a fast plan: a ``literal``, or an expression: its ``step``
    (context -> (text, slot)), the ``names`` it reads (the first is the value it is
    written from), for a filter chain what it reads of its arguments (``projections``:
    [(name, read)], None when it reads them whole) and the expression itself (``key``:
    the same key writes the same text from the same values)."""

    __slots__ = ()

    def __new__(cls, literal, step, names, projections, key=None):
        return tuple.__new__(cls, (literal, step, tuple(names), projections, key))

    literal = property(lambda self: self[0])
    step = property(lambda self: self[1])
    names = property(lambda self: self[2])
    projections = property(lambda self: self[3])
    key = property(lambda self: self[4])


def _expr_names(expr) -> list[str]:
    """Every variable an expression reads, the one it is written from first."""
    kind = expr[0]
    if kind == "name":
        return [expr[1]]
    if kind == "const":
        return []
    if kind == "attr":
        return _expr_names(expr[1])
    names = _expr_names(expr[2])
    for a in expr[3]:
        names += [n for n in _expr_names(a) if n not in names]
    return names


def _input_names(expr) -> list[str] | None:
    """The variables a filter chain reads, when it reads nothing else (no field access):
    its result is then a function of those values alone (filters are pure), and may be
    remembered. None otherwise."""
    kind = expr[0]
    if kind == "name":
        return [expr[1]]
    if kind == "const":
        return []
    if kind == "filter":
        names = _input_names(expr[2])
        for a in expr[3]:
            more = _input_names(a)
            if names is None or more is None:
                return None
            names += [n for n in more if n not in names]
        return names
    return None


def _compile_expr(expr, renderer, where) -> Callable[[Mapping[str, Any]], Any]:
    kind = expr[0]
    if kind == "name":
        name = expr[1]

        def get_name(ctx):
            try:
                return ctx[name]
            except KeyError:
                raise RenderError(f"undefined: {name!r} is undefined", where) from None

        return get_name
    if kind == "const":
        value = expr[1]
        return lambda ctx: value
    if kind == "attr":
        inner, attr = _compile_expr(expr[1], renderer, where), expr[2]
        sandbox_getattr = renderer.env.getattr

        def get_attr(ctx):
            obj = inner(ctx)
            fields = getattr(type(obj), "_fields", None) and obj._fields
            if isinstance(fields, dict) and attr in fields:  # a slot's data field
                return fields[attr]
            value = sandbox_getattr(obj, attr)  # anything else: the sandbox decides
            if isinstance(value, Undefined):
                raise RenderError(f"undefined: no field {attr!r}", where)
            return value

        return get_attr
    fn = renderer.raw_filters[expr[1]]
    inner = _compile_expr(expr[2], renderer, where)
    args = [_compile_expr(a, renderer, where) for a in expr[3]]
    if not args:
        return lambda ctx: fn(inner(ctx))
    if len(args) == 1:
        arg = args[0]
        return lambda ctx: fn(inner(ctx), arg(ctx))
    return lambda ctx: fn(inner(ctx), *[a(ctx) for a in args])


# Remembered results per expression (see _compiled_step). Slot values are few and reused
# by many problems (a noun phrase's accusative is written thousands of times); values made
# afresh per problem (time expressions) would make the memory grow, so a full table is
# emptied and refilled.
_MEMO_LIMIT = 50_000


def _hashable(expr):
    return tuple(_hashable(x) if isinstance(x, (tuple, list)) else x for x in expr)


def _compiled_step(expr, renderer, where) -> Callable[[Mapping[str, Any]], tuple[str, str | None]]:
    """One ``{{ ... }}`` of a text as a function of the context: (its text, the slot whose
    span it is, or None). A filter chain over one slot is computed once per value of that
    slot: filters are pure, so the text is a function of the value. The table is shared
    by every text with the same expression (a premise and its explanation both write
    ``O|acc``), keyed by the value's identity, and holds the value itself, so an identity
    is never reused while its entry lives."""
    fn = _compile_expr(expr, renderer, where)
    root = _root_name(expr)

    def step(ctx):
        text = str(renderable(fn(ctx), where))
        slot = getattr(ctx.get(root), "_slot_name", None) if root is not None else None
        return text, slot

    names = _input_names(expr) if expr[0] == "filter" else None
    if not names:
        return step
    memo = renderer.memo(_hashable(expr))
    if len(names) == 1:
        (only,) = names

        def remembered(ctx):
            value = ctx.get(only)
            hit = memo.get(id(value))
            if hit is not None:
                return hit[0]
            result = step(ctx)
            if len(memo) >= _MEMO_LIMIT:
                memo.clear()
            memo[id(value)] = (result, value)
            return result

        return remembered
    projections = _argument_projections(expr, renderer)
    if projections is None:  # two values whose combinations are too many to pay off
        return step
    root_name = names[0]

    def remembered_by_reads(ctx):
        # a filter that declares what it reads of its arguments (agree: the subject's
        # number) is remembered by the root value and those reads
        value = ctx.get(root_name)
        key = (id(value), *[(type(ctx.get(n)), read(ctx.get(n))) for n, read in projections])
        hit = memo.get(key)
        if hit is not None:
            return hit[0]
        result = step(ctx)
        if len(memo) >= _MEMO_LIMIT:
            memo.clear()
        memo[key] = (result, value)
        return result

    return remembered_by_reads


def _argument_projections(expr, renderer) -> list[tuple[str, Callable]] | None:
    """For a chain ``root|f(arg)|g...`` whose slot arguments are read only through what
    their filters declare (``filter.argument_reads``: one function per argument, the part
    of the value the filter uses), [(argument name, its read)]; None otherwise."""
    out: list[tuple[str, Callable]] = []
    node = expr
    while node[0] == "filter":
        reads = getattr(renderer.raw_filters[node[1]], "argument_reads", None)
        for i, arg in enumerate(node[3]):
            if arg[0] == "const":
                continue
            if arg[0] != "name" or reads is None or i >= len(reads) or reads[i] is None:
                return None
            out.append((arg[1], reads[i]))
        node = node[2]
    return out if node[0] == "name" else None


def _compile_plan(plan, renderer, where):
    """(render, render_text, parts): the text with its slot spans, the text alone, and
    its parts (TextPart: literals and expressions, in order)."""
    steps = []
    parts = []
    for kind, payload in plan:
        if kind == "text":
            steps.append((None, payload))
            parts.append(TextPart(payload, None, (), ()))
        else:
            step = _compiled_step(payload, renderer, where)
            steps.append((step, None))
            names = _expr_names(payload)
            parts.append(TextPart(None, step, names, _argument_projections(payload, renderer)
                                  if payload[0] == "filter" else (), _hashable(payload)))

    def render(context):
        parts: list[str] = []
        spans: dict[str, list[list[int]]] = {}
        length = 0
        for fn, literal in steps:
            if fn is None:
                text = literal
            else:
                text, slot = fn(context)
                if slot is not None:
                    spans.setdefault(slot, []).append([length, length + len(text)])
            parts.append(text)
            length += len(text)
            if length > _MAX_OUTPUT:
                raise RenderError(f"output longer than {_MAX_OUTPUT} characters", where)
        out = "".join(parts)
        stripped = out.strip()
        if len(stripped) != len(out):
            offset = len(out) - len(out.lstrip())
            end = len(stripped)
            spans = {s: [[max(0, a - offset), min(end, b - offset)] for a, b in v]
                     for s, v in spans.items()}
        return stripped, spans

    def render_text(context):
        out = "".join([literal if fn is None else fn(context)[0] for fn, literal in steps])
        if len(out) > _MAX_OUTPUT:
            raise RenderError(f"output longer than {_MAX_OUTPUT} characters", where)
        return out.strip()

    return render, render_text, parts


def strip_marks(marked: str) -> tuple[str, dict[str, list[list[int]]]]:
    """Remove slot marks; return clean text (whitespace-stripped) and slot spans."""
    out: list[str] = []
    spans: dict[str, list[list[int]]] = {}
    stack: list[tuple[str, int]] = []
    pos = 0
    length = 0
    for m in _MARK_RE.finditer(marked):
        chunk = marked[pos:m.start()]
        out.append(chunk)
        length += len(chunk)
        if m.group(0) == _CLOSE:
            if stack:
                slot, start = stack.pop()
                spans.setdefault(slot, []).append([start, length])
        else:
            stack.append((m.group(1), length))
        pos = m.end()
    out.append(marked[pos:])
    text = "".join(out)
    stripped = text.strip()
    if stripped != text:
        offset = len(text) - len(text.lstrip())
        end = len(stripped)
        spans = {
            s: [[max(0, a - offset), min(end, b - offset)] for a, b in v] for s, v in spans.items()
        }
    return stripped, spans
