"""Types of the biased decks compiled ahead of time from _pools.c (see pools.py)."""

import numpy as np
import numpy.typing as npt

SOURCE_SHA256: str  # of the sources it was built from (setup.py; harness/compiled.py)

def draw(
    params: npt.NDArray[np.int64],
    weight: npt.NDArray[np.float32],
    uniforms: npt.NDArray[np.float32],
    windows: npt.NDArray[np.int64],
    out: npt.NDArray[np.uint8],
) -> None: ...
