"""What the census of each dealer qualifier a profile may name is, committed with the code.

A cached census (harness/gamemath/census.py) carries its own sha256, which shows damage
but not a substitution: another qualifier's census copied over it, or counts moved
between categories with the sha256 computed again, would pass. So a census read from
the cache is also held to these records, which the cache cannot change: its sha256 and
its column totals over all deals (each row weighted by its (hole, flop) count; the
columns as harness/gamemath/kernel.py lays them out), one record per qualifier of the
profile schema (pair_of_twos .. pair_of_sixes), and the sha256 of the suit-symmetry
tables that number the situations. The census is exact, so every build of the kernel
gives these bytes (tests/test_gamemath.py); a census that differs is recomputed.

Computed once by the kernel and pasted here; `tests/test_census_reference.py` recomputes
them all (slow tier) and prints the records to paste when the census changes meaning
(census.CENSUS_VERSION).
"""

from __future__ import annotations

from dataclasses import dataclass

CENSUS_VERSION = 1  # the census.CENSUS_VERSION these records are of


@dataclass(frozen=True)
class CensusReference:
    """The census of one dealer qualifier: its sha256 (int32, little-endian, situations x
    kernel.USED_COLUMNS) and its weighted column totals (deals, per column)."""

    qualifier: str  # as profiles name it
    qualifying: int  # the weakest qualifying strength (harness/rules/evaluator.py minimum_strength)
    sha256: str
    column_totals: tuple[int, ...]


# harness/gamemath/census.py tables_sha256 of the symmetry tables (_ARRAYS).
SYMMETRY_SHA256 = "f367776cb0c022d988d4bd766f8eec0bf25e478894eddcb9139074c7fe54db7c"

# The same of the strategy summary's class of every situation (harness/gamemath/strategy.py
# `situation_classes`, int8, named "classes"); tests/test_gamemath.py recomputes it.
CLASSES_SHA256 = "8f6d47c120ed6e69d3b4aaa486b1f4a69a3b4cd06b883cae6b0a21e8e0bd8875"

REFERENCES = (
    CensusReference(
        qualifier="pair_of_twos",
        qualifying=0x100000,
        sha256="356471ccdac553040a679186f46ca8c6ba1c479a2c5b14ff35ecf61736e95942",
        column_totals=(
            1_649_349_087_600,
            4_968_579_887_640,
            4_198_962_660_120,
            976_648_299_480,
            1_036_850_760_720,
            715_231_952_880,
            628_105_004_640,
            42_408_648_000,
            7_342_371_440,
            856_152_000,
            883_081_131_600,
            0,
            9_381_416_590_520,
            12_574_985_736_920,
        ),
    ),
    CensusReference(
        qualifier="pair_of_threes",
        qualifying=0x110000,
        sha256="bdc00bbf74bc76a686dc701a5b6953bbfa4400f6506972db52922c8babf39b43",
        column_totals=(
            1_831_778_864_400,
            5_108_773_505_400,
            4_198_962_660_120,
            976_648_299_480,
            1_036_850_760_720,
            715_231_952_880,
            628_105_004_640,
            42_408_648_000,
            7_342_371_440,
            856_152_000,
            1_065_510_908_400,
            140_193_617_760,
            8_753_146_965_080,
            12_283_423_842_200,
        ),
    ),
    CensusReference(
        qualifier="pair_of_fours",
        qualifying=0x120000,
        sha256="b3827e3c8cc10d78fd190079d830edb64813cfa2e7d1979a9e89b20d3276618c",
        column_totals=(
            2_010_576_857_520,
            5_263_670_923_560,
            4_198_962_660_120,
            976_648_299_480,
            1_036_850_760_720,
            715_231_952_880,
            628_105_004_640,
            42_408_648_000,
            7_342_371_440,
            856_152_000,
            1_244_308_901_520,
            295_091_035_920,
            8_143_358_912_360,
            11_980_649_038_280,
        ),
    ),
    CensusReference(
        qualifier="pair_of_fives",
        qualifying=0x130000,
        sha256="8f3bfbb7bfc207a908ae3d23160282305175d25e88231d37c3a1ebb4a61b275f",
        column_totals=(
            2_185_748_529_600,
            5_432_599_646_640,
            4_198_962_660_120,
            976_648_299_480,
            1_036_850_760_720,
            715_231_952_880,
            628_105_004_640,
            42_408_648_000,
            7_342_371_440,
            856_152_000,
            1_419_480_573_600,
            464_019_759_000,
            7_551_385_399_520,
            11_667_252_611_840,
        ),
    ),
    CensusReference(
        qualifier="pair_of_sixes",
        qualifying=0x140000,
        sha256="d9f4e7700ad664596ab79b384f4b10dfeb082d9985dab91e791a633232b754d8",
        column_totals=(
            2_357_293_880_640,
            5_614_881_391_800,
            4_198_962_660_120,
            976_648_299_480,
            1_036_850_760_720,
            715_231_952_880,
            628_105_004_640,
            42_408_648_000,
            7_342_371_440,
            856_152_000,
            1_591_025_924_640,
            646_301_504_160,
            6_976_548_143_720,
            11_343_837_089_480,
        ),
    ),
)

BY_QUALIFYING = {reference.qualifying: reference for reference in REFERENCES}
