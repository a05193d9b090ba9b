"""Per-matrix random streams in bulk: NumPy's bits, without a Generator per matrix.

Matrix ``k`` of a call draws from ``np.random.Generator(PCG64(child_k))``,
``child_k`` the ``k``-th child of the call's :class:`~numpy.random.SeedSequence`
(:func:`spdgraph.seeds.matrix_stream`). Making that object costs about 40 us
(a SeedSequence, its pool, a bit generator, a lock), more than the whole PO of
a 20-node matrix. Here the same streams are computed for a whole stack in
compiled loops, bit for bit:

* :func:`pcg64_states`: each child's entropy (the root's words, then its
  spawn key with ``k`` last, as ``SeedSequence`` assembles them), mixed into a
  pool and expanded by ``SeedSequence.generate_state``'s hash, seeds a PCG64
  state (128-bit LCG state and increment) exactly as ``PCG64(child_k)`` does;
* :func:`next_uint64`, :func:`next_double`: PCG64's XSL-RR output;
* :func:`standard_normal`, :func:`standard_exponential`,
  :func:`standard_gamma`, :func:`chisquare`: the algorithms of NumPy's
  ``distributions.c`` (the 256-step ziggurats with their tables, Marsaglia and
  Tsang's gamma), in the same order of operations, calling the same C library
  functions (``exp``, ``log``, ``log1p``, ``pow``).

The tests compare every function with NumPy's on the same machine, over many
seeds, spawn keys and distribution parameters (the ziggurats' rare tails
included): a mismatch would change seeded results, so it fails the suite.
The state of one stream is a ``uint64`` row ``[state_hi, state_lo, inc_hi, inc_lo]``.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir  # type: ignore[import-untyped]
from numba import njit, types
from numba.extending import intrinsic
from numba.np.random import _constants as _zig  # NumPy's ziggurat tables, as Numba ships them

__all__ = [
    "chisquare",
    "next_double",
    "next_uint64",
    "pcg64_states",
    "standard_exponential",
    "standard_gamma",
    "standard_normal",
]

_U64 = np.uint64
_MASK32 = _U64(0xFFFFFFFF)
_S32 = _U64(32)
_S16 = np.uint32(16)
# SeedSequence's hash constants (numpy/random/bit_generator.pyx)
_INIT_A = np.uint32(0x43B0D7E5)
_MULT_A = np.uint32(0x931E8875)
_INIT_B = np.uint32(0x8B51F9DD)
_MULT_B = np.uint32(0x58F38DED)
_MIX_L = np.uint32(0xCA01F9DD)
_MIX_R = np.uint32(0x4973F715)
_POOL = 4
# PCG64's 128-bit multiplier (PCG_DEFAULT_MULTIPLIER_128), high and low words
_MUL_HI = _U64(2549297995355413924)
_MUL_LO = _U64(4865540595714422341)

_KI = np.asarray(_zig.ki_double, dtype=np.uint64)
_WI = np.asarray(_zig.wi_double, dtype=np.float64)
_FI = np.asarray(_zig.fi_double, dtype=np.float64)
_KE = np.asarray(_zig.ke_double, dtype=np.uint64)
_WE = np.asarray(_zig.we_double, dtype=np.float64)
_FE = np.asarray(_zig.fe_double, dtype=np.float64)
_NOR_R = float(_zig.ziggurat_nor_r)
_NOR_INV_R = float(_zig.ziggurat_nor_inv_r)
_EXP_R = float(_zig.ziggurat_exp_r)


@njit(cache=True, nogil=True)
def _hashmix(value, hash_const):
    """SeedSequence's ``hashmix``; ``hash_const`` is a one-element uint32 array."""
    value = np.uint32(value ^ hash_const[0])
    hash_const[0] = np.uint32(hash_const[0] * _MULT_A)
    value = np.uint32(value * hash_const[0])
    return np.uint32(value ^ (value >> _S16))


@njit(cache=True, nogil=True)
def _mix(x, y):
    result = np.uint32(np.uint32(_MIX_L * x) - np.uint32(_MIX_R * y))
    return np.uint32(result ^ (result >> _S16))


@njit(cache=True, nogil=True)
def _pool(entropy):
    """SeedSequence's ``mix_entropy``: the 4-word pool of the assembled ``entropy``."""
    hash_const = np.empty(1, dtype=np.uint32)
    hash_const[0] = _INIT_A
    pool = np.empty(_POOL, dtype=np.uint32)
    n = entropy.shape[0]
    for i in range(_POOL):
        pool[i] = _hashmix(entropy[i] if i < n else np.uint32(0), hash_const)
    for i_src in range(_POOL):
        for i_dst in range(_POOL):
            if i_src != i_dst:
                pool[i_dst] = _mix(pool[i_dst], _hashmix(pool[i_src], hash_const))
    for i_src in range(_POOL, n):
        for i_dst in range(_POOL):
            pool[i_dst] = _mix(pool[i_dst], _hashmix(entropy[i_src], hash_const))
    return pool


@njit(cache=True, nogil=True)
def _seed_words(pool, out):
    """``generate_state(4, uint64)`` of ``pool`` into ``out`` (4 uint64, little-endian pairs)."""
    hash_const = _MULT_B * np.uint32(0) + _INIT_B  # a uint32 that evolves
    words = np.empty(8, dtype=np.uint32)
    for i in range(8):
        value = np.uint32(pool[i % _POOL] ^ hash_const)
        hash_const = np.uint32(hash_const * _MULT_B)
        value = np.uint32(value * hash_const)
        words[i] = np.uint32(value ^ (value >> _S16))
    for j in range(4):
        out[j] = _U64(words[2 * j]) | (_U64(words[2 * j + 1]) << _S32)


@intrinsic
def _mulhi(typingctx, a, b):
    """The high 64 bits of the 128-bit product of two uint64 (one ``mul`` on x86-64)."""
    sig = types.uint64(types.uint64, types.uint64)

    def codegen(context, builder, signature, args):
        wide = ir.IntType(128)
        product = builder.mul(builder.zext(args[0], wide), builder.zext(args[1], wide))
        return builder.trunc(builder.lshr(product, ir.Constant(wide, 64)), ir.IntType(64))

    return sig, codegen


@njit(cache=True, nogil=True)
def _step(s):
    """``state = state * MULT + inc`` (128-bit, modulo 2^128) on ``s[0:2]``."""
    hi, lo = s[0], s[1]
    new_lo = lo * _MUL_LO
    new_hi = _mulhi(lo, _MUL_LO) + hi * _MUL_LO + lo * _MUL_HI
    total_lo = new_lo + s[3]
    carry = _U64(1) if total_lo < new_lo else _U64(0)
    s[0] = new_hi + s[2] + carry
    s[1] = total_lo


@njit(cache=True, nogil=True)
def _seed_pcg64(words, s):
    """``PCG64``'s seeding (``pcg64_set_seed``) from ``generate_state(4, uint64)``."""
    # inc = (initseq << 1) | 1, initseq = words[2] : words[3]
    s[2] = (words[2] << _U64(1)) | (words[3] >> _U64(63))
    s[3] = (words[3] << _U64(1)) | _U64(1)
    s[0] = _U64(0)
    s[1] = _U64(0)
    _step(s)
    lo = s[1] + words[1]
    carry = _U64(1) if lo < s[1] else _U64(0)
    s[0] = s[0] + words[0] + carry
    s[1] = lo
    _step(s)


@njit(cache=True, nogil=True)
def _states(prefix, ks, out):
    n_prefix = prefix.shape[0]
    entropy = np.empty(n_prefix + 2, dtype=np.uint32)
    entropy[:n_prefix] = prefix
    words = np.empty(4, dtype=np.uint64)
    for j in range(ks.shape[0]):
        k = ks[j]
        entropy[n_prefix] = np.uint32(k & _MASK32)
        length = n_prefix + 1
        if k >> _S32:  # a spawn key word above 2^32 - 1 takes two words
            entropy[n_prefix + 1] = np.uint32(k >> _S32)
            length += 1
        _seed_words(_pool(entropy[:length]), words)
        _seed_pcg64(words, out[j])


def _entropy_prefix(root: np.random.SeedSequence) -> np.ndarray:
    """The words a child of ``root`` assembles before its own index (SeedSequence's rule)."""
    from numpy.random.bit_generator import (  # type: ignore[attr-defined]
        _coerce_to_uint32_array,  # SeedSequence's own rule
    )

    run = _coerce_to_uint32_array(root.entropy)
    if run.size < root.pool_size:  # a child always has a spawn key: the run is padded
        run = np.concatenate([run, np.zeros(root.pool_size - run.size, dtype=np.uint32)])
    key = [_coerce_to_uint32_array(x) for x in root.spawn_key]
    return np.ascontiguousarray(np.concatenate([run, *key]), dtype=np.uint32)


def pcg64_states(root: np.random.SeedSequence, ks: np.ndarray) -> np.ndarray:
    """The PCG64 states of ``matrix_stream(root, k)`` for every ``k`` of ``ks``: ``(n, 4)`` uint64.

    Row ``j`` is ``[state_hi, state_lo, inc_hi, inc_lo]`` of
    ``PCG64(SeedSequence(root.entropy, spawn_key=(*root.spawn_key, ks[j])))``.
    Only the default pool size (4) is supported (the only one spdgraph makes).

    Examples
    --------
    >>> import numpy as np
    >>> root = np.random.SeedSequence(5)
    >>> s = pcg64_states(root, np.array([3], dtype=np.uint64))[0]
    >>> ref = np.random.PCG64(root.spawn(4)[3]).state["state"]
    >>> (int(s[0]) << 64 | int(s[1])) == ref["state"]
    True
    """
    if root.pool_size != _POOL:
        raise ValueError(f"pcg64_states needs pool_size={_POOL}, got {root.pool_size}.")
    ks = np.ascontiguousarray(ks, dtype=np.uint64)
    out = np.empty((ks.shape[0], 4), dtype=np.uint64)
    _states(_entropy_prefix(root), ks, out)
    return out


@njit(cache=True, nogil=True)
def next_uint64(s):
    """PCG64's next output (XSL-RR of the stepped state)."""
    _step(s)
    hi, lo = s[0], s[1]
    rot = hi >> _U64(58)
    value = hi ^ lo
    return (value >> rot) | (value << ((_U64(64) - rot) & _U64(63)))


@njit(cache=True, nogil=True)
def next_double(s):
    """A uniform double in [0, 1): the top 53 bits of the next output."""
    return float(next_uint64(s) >> _U64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, nogil=True, error_model="numpy")
def standard_normal(s):
    """NumPy's ``random_standard_normal`` (256-step ziggurat).

    The rare rejection steps are a separate function that is never inlined
    (:func:`_normal_rejection`): with them inlined, the loop of a caller kept
    its values in memory and a normal cost twice as much (the same bits).
    """
    while True:
        r = next_uint64(s)
        idx = r & _U64(0xFF)
        r = r >> _U64(8)
        sign = r & _U64(1)
        rabs = (r >> _U64(1)) & _U64(0x000FFFFFFFFFFFFF)
        x = float(rabs) * _WI[idx]
        if sign & _U64(1):
            x = -x
        if rabs < _KI[idx]:
            return x
        accepted, value = _normal_rejection(s, idx, rabs, x)
        if accepted:
            return value


@njit(cache=True, nogil=True, error_model="numpy", inline="never")
def _normal_rejection(s, idx, rabs, x):
    """The ziggurat's steps outside the rectangles: ``(accepted, value)``."""
    if idx == 0:  # the tail
        while True:
            xx = -_NOR_INV_R * np.log1p(-next_double(s))
            yy = -np.log1p(-next_double(s))
            if yy + yy > xx * xx:
                if (rabs >> _U64(8)) & _U64(1):
                    return True, -(_NOR_R + xx)
                return True, _NOR_R + xx
    if (_FI[idx - 1] - _FI[idx]) * next_double(s) + _FI[idx] < np.exp(-0.5 * x * x):
        return True, x
    return False, x


@njit(cache=True, nogil=True, error_model="numpy")
def standard_exponential(s):
    """NumPy's ``random_standard_exponential`` (256-step ziggurat; rare steps apart)."""
    while True:
        ri = next_uint64(s) >> _U64(3)
        idx = ri & _U64(0xFF)
        ri = ri >> _U64(8)
        x = float(ri) * _WE[idx]
        if ri < _KE[idx]:
            return x
        accepted, value = _exponential_rejection(s, idx, x)
        if accepted:
            return value


@njit(cache=True, nogil=True, error_model="numpy", inline="never")
def _exponential_rejection(s, idx, x):
    """The exponential ziggurat's steps outside the rectangles: ``(accepted, value)``."""
    if idx == 0:
        return True, _EXP_R - np.log1p(-next_double(s))
    if (_FE[idx - 1] - _FE[idx]) * next_double(s) + _FE[idx] < np.exp(-x):
        return True, x
    return False, x


@njit(cache=True, nogil=True, error_model="numpy")
def standard_gamma(s, shape):
    """NumPy's ``random_standard_gamma`` (Marsaglia and Tsang; Johnk's rule below 1)."""
    if shape == 1.0:
        return standard_exponential(s)
    if shape == 0.0:
        return 0.0
    if shape < 1.0:
        while True:
            u = next_double(s)
            v = standard_exponential(s)
            if u <= 1.0 - shape:
                x = u ** (1.0 / shape)
                if x <= v:
                    return x
            else:
                y = -np.log((1.0 - u) / shape)
                x = (1.0 - shape + shape * y) ** (1.0 / shape)
                if x <= v + y:
                    return x
    b = shape - 1.0 / 3.0
    c = 1.0 / np.sqrt(9.0 * b)
    while True:
        while True:
            x = standard_normal(s)
            v = 1.0 + c * x
            if not v <= 0.0:
                break
        v = v * v * v
        u = next_double(s)
        if u < 1.0 - 0.0331 * (x * x) * (x * x):
            return b * v
        if np.log(u) < 0.5 * x * x + b * (1.0 - v + np.log(v)):
            return b * v


@njit(cache=True, nogil=True, error_model="numpy")
def chisquare(s, df):
    """NumPy's ``random_chisquare``: twice a standard gamma of shape ``df / 2``."""
    return 2.0 * standard_gamma(s, df / 2.0)
