"""Seeds: one root per call, one child stream per matrix, the user's objects untouched."""

import numpy as np
import pytest

import spdgraph
from spdgraph.seeds import child_generator, seed_attrs, seed_sequence


def test_child_k_is_the_kth_spawned_child():
    root = seed_sequence(5)
    spawned = np.random.SeedSequence(5).spawn(4)
    for k, child in enumerate(spawned):
        expected = np.random.Generator(np.random.PCG64(child)).random(3)
        np.testing.assert_array_equal(child_generator(root, k).random(3), expected)


def test_a_seed_sequence_is_never_mutated():
    user = np.random.SeedSequence(9)
    before = user.n_children_spawned
    seed_sequence(user)
    child_generator(seed_sequence(user), 3)
    assert user.n_children_spawned == before


def test_generator_seed_advances_the_generator():
    rng = np.random.default_rng(1)
    a, b = seed_sequence(rng), seed_sequence(rng)
    assert a.entropy != b.entropy


@pytest.mark.parametrize("bad", [-1, 1.5, "3", True])
def test_bad_seeds(bad):
    with pytest.raises(spdgraph.InvalidOptionError, match="seed"):
        seed_sequence(bad)


def test_seed_attrs_replay_the_root():
    root = np.random.SeedSequence(123, spawn_key=(4, 5))
    attrs = seed_attrs(root)
    assert attrs == {"seed": "123", "seed_spawn_key": "4,5"}
    assert seed_attrs(seed_sequence(7)) == {"seed": "7"}
