"""Corpus scanning: raw-bytes Aho-Corasick matching, streaming inputs, processes and Dask."""

from .conllu import read_conllu
from .counts import CLASSES, SETS, ScanCounts
from .inputs import Unit, plan_units, read_range, read_unit
from .matcher import count_block, count_block_occupations
from .run import scan_corpus
from .serial import scan_unit
from .spec import ScanSpec, build_spec
from .streams import read_stream

__all__ = [
    "CLASSES",
    "SETS",
    "ScanCounts",
    "ScanSpec",
    "Unit",
    "build_spec",
    "count_block",
    "count_block_occupations",
    "plan_units",
    "read_conllu",
    "read_range",
    "read_stream",
    "read_unit",
    "scan_corpus",
    "scan_unit",
]
