"""Shared fixtures: one context on the devices PARTCL_DEVICE selects (partcl's default, 'gpu|cpu',
when unset), and fresh random inputs for every test."""

import numpy as np
import pytest

import partcl


@pytest.fixture(scope="session")
def ctx():
    return partcl.Context()


@pytest.fixture
def rng():
    seed = np.random.SeedSequence().entropy
    print(f"numpy seed {seed}")  # pytest shows it when the test fails
    return np.random.default_rng(seed)


def precisions(context):
    """float, and double where every device of the context runs it."""
    return ["float"] + (["double"] if all(d.fp64 for d in context.devices) else [])
