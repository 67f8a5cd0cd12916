"""A small, safe expression language for gold-label conditions.

Conditions are parsed with :mod:`ast` and checked against a whitelist; they are never
``eval``'d. What a condition may contain:

* literals: integers, decimals, strings, ``True``, ``False``;
* names: slots of the template, variant axes, and time units (``year``, ``month``,
  ``week``, ``day``, ``hour``, ``minute``, ``second``);
* field access ``tp_1.start`` / ``agent.age`` (read from the value's data, never a
  Python attribute);
* arithmetic ``+ - * /`` and unary ``-`` (on numbers, time points and durations);
* comparisons ``== != < <= > >=`` (chains allowed) and ``in`` / ``not in`` against a
  literal list ``x in ("a", "b")``;
* ``and``, ``or``, ``not``; a top-level comma means ``and`` (Jamp writes
  ``tp_1.end <= tp_3.end, tp_3.end <= tp_2.end``).

Function calls, subscripts, lambdas, comprehensions and every other construct are
rejected when the template loads.
"""

from __future__ import annotations

import ast
import datetime as _dt
import math
import operator
from collections.abc import Mapping
from typing import Any, Callable

from . import time as ntime
from .errors import ConditionError

Env = Mapping[str, Any]
Evaluator = Callable[[Env], Any]

_COMPARE_OPS = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}
_ARITH_SYMBOL = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}
_MAX_STR = 10_000
_MAX_INT_BITS = 256
_MAX_DEPTH = 60


def get_field(value: Any, name: str) -> Any:
    """Read a data field of a value: ``__condition_field__`` protocol or a mapping key."""
    reader = getattr(type(value), "__condition_field__", None)
    if reader is not None:
        return reader(value, name)
    if isinstance(value, Mapping):
        if name in value:
            return value[name]
        raise ConditionError(f"no field {name!r} (fields: {', '.join(sorted(map(str, value)))})")
    raise ConditionError(f"a value of type {type(value).__name__} has no field {name!r}")


def _list_field(read: Callable[[Env], Any]) -> Callable[[Env], list]:
    """The right side of ``in`` when it is a field: it must hold a list of plain values
    (strings substring-match, which a condition should never rely on)."""

    def items(env: Env) -> list:
        value = read(env)
        if not isinstance(value, (list, tuple)) or not all(
                isinstance(v, (str, int, float, bool)) for v in value):
            raise ConditionError("'in' needs a list; this field holds "
                                 f"{type(value).__name__}")
        return list(value)

    return items


def _scalar(value: Any) -> Any:
    """Slot values may stand for a scalar (a range slot's number); unwrap them."""
    unwrap = getattr(type(value), "__condition_value__", None)
    return unwrap(value) if unwrap is not None else value


def _check_number(value: Any) -> Any:
    """Numbers stay small: big integers make every operation slow (a DoS), and NaN or
    infinity would make comparisons meaningless."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value.bit_length() > _MAX_INT_BITS:
            raise ConditionError(f"number larger than 2**{_MAX_INT_BITS}")
    elif isinstance(value, float) and not math.isfinite(value):
        raise ConditionError("number is not finite")
    return value


def _depth(node: ast.AST) -> int:
    deepest = 0
    stack = [(node, 1)]
    while stack:
        current, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(current))
    return deepest


def _arith(op: type, left: Any, right: Any) -> Any:
    return _check_number(_arith_unchecked(op, left, right))


def _arith_unchecked(op: type, left: Any, right: Any) -> Any:
    left, right = _scalar(left), _scalar(right)
    _check_number(left)
    _check_number(right)
    symbol = _ARITH_SYMBOL[op]
    for v in (left, right):
        if isinstance(v, bool) or not isinstance(
            v, (int, float, str, ntime.Duration, _dt.datetime)
        ):
            raise ConditionError(f"cannot use {type(v).__name__} in arithmetic ({symbol})")
    try:
        if op is ast.Add:
            if isinstance(left, str) != isinstance(right, str):
                raise TypeError
            result = left + right
            if isinstance(result, str) and len(result) > _MAX_STR:
                raise ConditionError("string too long")
            return result
        if op is ast.Sub:
            result = ntime.subtract(left, right)
            return left - right if result is NotImplemented else result
        if op is ast.Mult:
            if isinstance(left, str) or isinstance(right, str):
                raise TypeError  # no string repetition: a cheap way to exhaust memory
            return left * right
        if op is ast.Div:
            if not (isinstance(left, (int, float)) and isinstance(right, (int, float))):
                raise TypeError
            return left / right
    except ZeroDivisionError as exc:
        raise ConditionError("division by zero") from exc
    except TypeError as exc:
        raise ConditionError(
            f"cannot compute {type(left).__name__} {symbol} {type(right).__name__}"
        ) from exc
    raise ConditionError(f"operator {symbol} not supported")  # pragma: no cover


def _compare(op: type, left: Any, right: Any) -> bool:
    left, right = _scalar(left), _scalar(right)
    if op in (ast.In, ast.NotIn):
        found = left in right
        return found if op is ast.In else not found
    numeric = (int, float)
    same_kind = (
        (isinstance(left, numeric) and isinstance(right, numeric))
        or type(left) is type(right)
        or (isinstance(left, _dt.datetime) and isinstance(right, _dt.datetime))
    )
    if not same_kind:
        if op in (ast.Eq, ast.NotEq):
            return op is ast.NotEq
        raise ConditionError(
            f"cannot compare {type(left).__name__} with {type(right).__name__}"
        )
    try:
        return bool(_COMPARE_OPS[op](left, right))
    except TypeError as exc:
        raise ConditionError(f"cannot order values of type {type(left).__name__}") from exc


class Condition:
    """A parsed condition. Call it with an environment mapping names to values."""

    def __init__(self, source: str | bool, allowed_names: set[str] | None = None):
        if isinstance(source, bool):
            source = "True" if source else "False"
        if not isinstance(source, str):
            raise ConditionError(f"a condition must be a string or true/false, not {source!r}")
        self.source = source.strip()
        if not self.source:
            raise ConditionError("empty condition")
        if len(self.source) > 2000:
            raise ConditionError("condition longer than 2000 characters")
        try:
            tree = ast.parse(self.source, mode="eval")
        except SyntaxError as exc:
            raise ConditionError(f"cannot parse condition {self.source!r}: {exc.msg}") from None
        except (RecursionError, MemoryError, ValueError):
            raise ConditionError("condition nested too deeply") from None
        if _depth(tree) > _MAX_DEPTH:
            raise ConditionError(f"condition nested more than {_MAX_DEPTH} levels deep")
        self.names: set[str] = set()
        body = tree.body
        if isinstance(body, ast.Tuple):  # top-level comma = conjunction
            body = ast.BoolOp(op=ast.And(), values=list(body.elts))
        self._fn = self._compile(body)
        unknown = {n for n in self.names if n not in ntime.UNITS}
        if allowed_names is not None:
            unknown -= allowed_names
            if unknown:
                raise ConditionError(
                    f"condition {self.source!r} uses unknown name(s): {', '.join(sorted(unknown))}"
                )
        self.constant: bool | None = None
        if not (self.names - set(ntime.UNITS)):  # no slots: evaluate once, now
            self.constant = self(dict(ntime.UNITS))

    @property
    def slot_names(self) -> set[str]:
        """Names the condition reads, other than time units."""
        return {n for n in self.names if n not in ntime.UNITS}

    def __call__(self, env: Env) -> bool:
        try:
            result = self._fn(env)
        except (OverflowError, ValueError, ArithmeticError) as exc:
            raise ConditionError(f"condition {self.source!r}: {type(exc).__name__}") from None
        if not isinstance(result, bool):
            raise ConditionError(
                f"condition {self.source!r} gave a {type(result).__name__}, not true/false")
        return result

    def __repr__(self) -> str:
        return f"Condition({self.source!r})"

    # -- compilation to closures ------------------------------------------------
    def _compile(self, node: ast.AST) -> Evaluator:  # noqa: C901 - one case per node type
        if isinstance(node, ast.Constant):
            value = node.value
            if value is None or isinstance(value, (bytes, complex)) or value is Ellipsis:
                raise ConditionError(f"literal {type(value).__name__} is not allowed")
            if isinstance(value, str) and len(value) > _MAX_STR:
                raise ConditionError("string literal too long")
            _check_number(value)
            return lambda env: value
        if isinstance(node, ast.Name):
            name = node.id
            self.names.add(name)
            if name in ntime.UNITS:
                unit = ntime.UNITS[name]
                return lambda env: env.get(name, unit)

            def lookup(env: Env, name: str = name) -> Any:
                try:
                    return env[name]
                except KeyError:
                    raise ConditionError(f"unknown name {name!r}") from None

            return lookup
        if isinstance(node, ast.Attribute):
            if node.attr.startswith("_"):
                raise ConditionError(f"field {node.attr!r} is not allowed")
            base = self._compile(node.value)
            attr = node.attr
            return lambda env: get_field(base(env), attr)
        if isinstance(node, ast.BinOp):
            op = type(node.op)
            if op not in _ARITH_SYMBOL:
                raise ConditionError(
                    f"operator {type(node.op).__name__} is not allowed (use + - * /)"
                )
            left, right = self._compile(node.left), self._compile(node.right)
            return lambda env: _arith(op, left(env), right(env))
        if isinstance(node, ast.UnaryOp):
            operand = self._compile(node.operand)
            if isinstance(node.op, ast.Not):
                return lambda env: not _truth(operand(env))
            if isinstance(node.op, ast.USub):
                return lambda env: _negate(operand(env))
            if isinstance(node.op, ast.UAdd):
                return operand
            raise ConditionError(f"operator {type(node.op).__name__} is not allowed")
        if isinstance(node, ast.BoolOp):
            parts = [self._compile(v) for v in node.values]
            if isinstance(node.op, ast.And):
                return lambda env: all(_truth(p(env)) for p in parts)
            return lambda env: any(_truth(p(env)) for p in parts)
        if isinstance(node, ast.Compare):
            left = self._compile(node.left)
            steps = []
            for op, comparator in zip(node.ops, node.comparators):
                op_type = type(op)
                if op_type in (ast.In, ast.NotIn):
                    if isinstance(comparator, (ast.Tuple, ast.List, ast.Set)):
                        items = [self._compile(e) for e in comparator.elts]
                        steps.append((op_type, lambda env, items=items: [i(env) for i in items]))
                    elif isinstance(comparator, ast.Attribute):
                        # a list-valued field of a slot, e.g. ``interval_1.unit in V.durations``
                        steps.append((op_type, _list_field(self._compile(comparator))))
                    else:
                        raise ConditionError("'in' needs a list: a literal such as x in (1, 2) "
                                             "or a list-valued field such as V.durations")
                elif op_type in _COMPARE_OPS:
                    steps.append((op_type, self._compile(comparator)))
                else:
                    raise ConditionError(f"comparison {op_type.__name__} is not allowed")

            def compare(env: Env) -> bool:
                current = left(env)
                for op_type, right_fn in steps:
                    right = right_fn(env)
                    if not _compare(op_type, current, right):
                        return False
                    current = right
                return True

            return compare
        if isinstance(node, ast.Call):
            raise ConditionError("function calls are not allowed in conditions")
        raise ConditionError(f"{type(node).__name__} is not allowed in conditions")


def _truth(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ConditionError(f"expected true/false, got {value!r}")
    return value


def _negate(value: Any) -> Any:
    value = _scalar(value)
    if isinstance(value, bool) or not isinstance(value, (int, float, ntime.Duration)):
        raise ConditionError(f"cannot negate a {type(value).__name__}")
    return -value


class LabelRule:
    """How a hypothesis gets its label: a fixed label, or ordered conditions + otherwise.

    With conditions, at most one may hold for any filling: two holding at once means the
    template contradicts itself, which is reported rather than silently resolved.
    """

    def __init__(self, fixed: str | None = None,
                 conditions: list[tuple[str, Condition]] | None = None,
                 otherwise: str | None = None):
        self.fixed = fixed
        self.conditions = conditions or []
        self.otherwise = otherwise

    @property
    def labels(self) -> list[str]:
        """Labels this rule can give, in declaration order (statically false ones dropped)."""
        if self.fixed is not None:
            return [self.fixed]
        out = [lab for lab, cond in self.conditions if cond.constant is not False]
        if self.otherwise and self.otherwise not in out:
            always = any(cond.constant is True for _, cond in self.conditions)
            if not always:
                out.append(self.otherwise)
        return out

    @property
    def slot_names(self) -> set[str]:
        names: set[str] = set()
        for _, cond in self.conditions:
            names |= cond.slot_names
        return names

    def decide(self, env: Env) -> str | None:
        """The label for this filling, or None when no condition holds and there is no
        ``otherwise``."""
        if self.fixed is not None:
            return self.fixed
        holding = [lab for lab, cond in self.conditions if cond(env)]
        if len(holding) > 1:
            raise ConditionError(
                f"conditions for {' and '.join(holding)} hold at the same time"
            )
        if holding:
            return holding[0]
        return self.otherwise

    def describe(self) -> str:
        if self.fixed is not None:
            return f"fixed label {self.fixed}"
        parts = [f"{lab} if {cond.source}" for lab, cond in self.conditions]
        if self.otherwise:
            parts.append(f"otherwise {self.otherwise}")
        return "; ".join(parts)
