"""Stable, per-item random numbers.

Every item gets its own generator derived from a key such as
``(seed, template, variant, label, index, attempt)`` by BLAKE2b, so that

* the same key gives the same draws on any machine, Python version and PYTHONHASHSEED
  (no ``hash()``, no global ``random``, no dependence on ``random``'s internals);
* adding a template or asking for more items never changes the items already drawn.
"""

from __future__ import annotations

import hashlib
from typing import Sequence, TypeVar

T = TypeVar("T")

_SEP = "\x1f"  # unit separator: keeps ("a", "bc") and ("ab", "c") apart


def stable_key(*parts: object) -> bytes:
    """Join key parts into bytes unambiguously (str() of each part, separated)."""
    return _SEP.join(str(p) for p in parts).encode("utf-8")


def stable_int(*parts: object, bits: int = 64) -> int:
    """A stable integer in [0, 2**bits) derived from the parts."""
    digest = hashlib.blake2b(stable_key(*parts), digest_size=32).digest()
    return int.from_bytes(digest, "big") >> (256 - bits)


def pair_fingerprint(premise: str, hypothesis: str) -> int:
    """A 64-bit fingerprint of a (premise, hypothesis) pair, for the dedup set: a fifth of
    the memory of the pair itself. Two different pairs share one with odds of about
    n**2 / 2**65 in a run of n pairs (under 1e-7 at a million), and then the same pair is
    skipped on every machine, so output stays deterministic."""
    digest = hashlib.blake2b(f"{premise}{_SEP}{hypothesis}".encode("utf-8"),
                             digest_size=8).digest()
    return int.from_bytes(digest, "big")


class StableRng:
    """A small deterministic generator: a BLAKE2b counter stream keyed by the item key."""

    __slots__ = ("_key", "_counter")

    def __init__(self, *parts: object):
        self._key = hashlib.blake2b(stable_key(*parts), digest_size=32).digest()
        self._counter = 0

    def _next64(self) -> int:
        block = hashlib.blake2b(
            self._counter.to_bytes(8, "big"), key=self._key, digest_size=8
        ).digest()
        self._counter += 1
        return int.from_bytes(block, "big")

    def randbelow(self, n: int) -> int:
        """Uniform integer in [0, n), exactly uniform (rejection of the biased tail)."""
        if n <= 0:
            raise ValueError("randbelow() needs n > 0")
        if n == 1:
            return 0
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            x = self._next64()
            if x < limit:
                return x % n

    def randint(self, low: int, high: int) -> int:
        """Uniform integer in [low, high] (both ends included)."""
        return low + self.randbelow(high - low + 1)

    def random(self) -> float:
        """Uniform float in [0, 1) with 53 bits."""
        return (self._next64() >> 11) / float(1 << 53)

    def choice(self, seq: Sequence[T]) -> T:
        return seq[self.randbelow(len(seq))]

    def shuffle(self, items: list) -> None:
        """Fisher-Yates in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.randbelow(i + 1)
            items[i], items[j] = items[j], items[i]

    def sample(self, seq: Sequence[T], k: int) -> list[T]:
        pool = list(seq)
        self.shuffle(pool)
        return pool[:k]


_M64 = (1 << 64) - 1


class StablePermutation:
    """A keyed pseudo-random bijection of [0, size), evaluated one index at a time.

    A 4-round Feistel network on the smallest even-bit domain covering ``size``, with
    cycle-walking back into range: walking positions 0, 1, 2... visits every index exactly
    once in a seed-dependent order, without materialising (or shuffling) the whole range.
    """

    __slots__ = ("size", "_half", "_mask", "_round_keys", "_tables", "_calls")

    def __init__(self, size: int, *parts: object):
        if size <= 0:
            raise ValueError("a permutation needs size > 0")
        self.size = size
        bits = max(2, (size - 1).bit_length())
        self._half = (bits + 1) // 2
        self._mask = (1 << self._half) - 1
        digest = hashlib.blake2b(stable_key("permutation", *parts), digest_size=32).digest()
        self._round_keys = tuple(int.from_bytes(digest[i:i + 8], "big") for i in range(0, 32, 8))
        self._tables: tuple[list[int], ...] | None = None
        self._calls = 0

    def _round(self, key: int, right: int) -> int:
        # splitmix64 finaliser as the round function: integer-only, so identical on
        # every platform and Python version.
        z = (right ^ key) & _M64
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
        return (z ^ (z >> 31)) & self._mask

    def _encrypt(self, x: int) -> int:
        half, mask = self._half, self._mask
        left, right = x >> half, x & mask
        for k in self._round_keys:
            left, right = right, left ^ self._round(k, right)
        return (left << half) | right

    def _encrypt_tabled(self, x: int) -> int:
        # the same four rounds, each round function looked up in its table
        t0, t1, t2, t3 = self._tables  # type: ignore[misc]
        half = self._half
        left, right = x >> half, x & self._mask
        left ^= t0[right]
        right ^= t1[left]
        left ^= t2[right]
        right ^= t3[left]
        return (left << half) | right

    # Round tables hold 2**half values each: built for halves up to 2**12 (a domain of
    # 2**24, 16.7M) once the permutation was evaluated that many times, which makes an
    # evaluation about six times cheaper.
    _TABLE_HALF = 12

    def __getitem__(self, position: int) -> int:
        if not 0 <= position < self.size:
            raise IndexError(position)
        if self._tables is not None:
            encrypt = self._encrypt_tabled
        else:
            encrypt = self._encrypt
            self._calls += 1
            if self._half <= self._TABLE_HALF and self._calls > (1 << self._half):
                self._tables = tuple([self._round(k, r) for r in range(1 << self._half)]
                                     for k in self._round_keys)
        y = encrypt(position)
        while y >= self.size:  # cycle-walk: stays a bijection on [0, size)
            y = encrypt(y)
        return y

    def __len__(self) -> int:
        return self.size
