"""Types of the census kernel compiled ahead of time from _kernel.c (see kernel.py)."""

import numpy as np
import numpy.typing as npt

SOURCE_SHA256: str  # of the sources it was built from (setup.py; harness/compiled.py)

def census_chunk(
    boards: npt.NDArray[np.int64],
    board_weight: npt.NDArray[np.int64],
    flop_canon: npt.NDArray[np.int64],
    flop_perm: npt.NDArray[np.int64],
    situation_of: npt.NDArray[np.int32],
    card_map: npt.NDArray[np.int64],
    binom: npt.NDArray[np.int64],
    qualifying: int,
    acc: npt.NDArray[np.uint64],
    progress: npt.NDArray[np.int64],
    slot: int,
) -> None: ...
def unpack_rows(
    packed: npt.NDArray[np.uint64], weight: npt.NDArray[np.int64], out: npt.NDArray[np.int32]
) -> None: ...
def count_five_card_hands(out: npt.NDArray[np.int64]) -> None: ...
def five_card_sets(out: npt.NDArray[np.int64], keys: npt.NDArray[np.int64]) -> None: ...
