"""CoNLL-2012 reading and writing."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from winoscope.datasets.conll import ConllDocument, parse_conll, read_conll, write_conll
from winoscope.errors import DatasetError

DOC = """#begin document (test/doc//0); part 000
test/doc//0\t0\t0\tThe\t-\t(1
test/doc//0\t0\t1\tdeveloper\t-\t1)
test/doc//0\t0\t2\tmet\t-\t-
test/doc//0\t0\t3\tthe\t-\t(2
test/doc//0\t0\t4\tdesigner\t-\t2)
test/doc//0\t0\t5\tbecause\t-\t-
test/doc//0\t0\t6\the\t-\t(1)

test/doc//0\t1\t0\tHe\t-\t(1)|(3
test/doc//0\t1\t1\tleft\t-\t3)
#end document
"""


def test_reads_mentions_sentences_and_names() -> None:
    (doc,) = parse_conll(io.StringIO(DOC))
    assert doc.name == "(test/doc//0); part 000"
    assert doc.doc_id == "test/doc//0"
    assert doc.part == "000"
    assert doc.sentences == [
        ["The", "developer", "met", "the", "designer", "because", "he"],
        ["He", "left"],
    ]
    assert doc.clusters == [[(0, 1), (6, 6), (7, 7)], [(3, 4)], [(7, 8)]]
    assert doc.lines[7] == 10


def test_nested_and_same_entity_nesting() -> None:
    text = "#begin document (d); part 000\nd 0 0 x (1|(1\nd 0 1 y 1)\nd 0 2 z 1)\n#end document\n"
    (doc,) = parse_conll(io.StringIO(text))
    # the inner mention closes first (the latest opened)
    assert doc.clusters == [[(0, 1), (0, 2)]]


def test_round_trip_through_writer(tmp_path: Path) -> None:
    docs = parse_conll(io.StringIO(DOC))
    nested = ConllDocument(
        name="n", sentences=[["a", "b", "c", "d"]], clusters=[[(0, 3), (1, 1)], [(0, 1), (2, 3)]]
    )
    path = tmp_path / "out.conll"
    write_conll(path, [*docs, nested])
    back = read_conll(path)
    assert [d.clusters for d in back] == [docs[0].clusters, [[(1, 1), (0, 3)], [(0, 1), (2, 3)]]]
    assert back[1].name == "(n); part 000"
    assert back[0].sentences == docs[0].sentences
    assert "(0|(1\t" not in path.read_text()  # longest mention opens first
    assert "\t(0|(1\n" in path.read_text()


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("#begin document (d); part 000\nd 0 0 x 1)\n#end document\n", 2, "never started"),
        (
            "#begin document (d); part 000\nd 0 0 x (1\nd 0 1 y -\n#end document\n",
            4,
            "never closed",
        ),
        ("#begin document (d); part 000\nd 0 0 x (a)\n#end document\n", 2, "unrecognised"),
        ("d 0 0 x -\n", 1, "outside"),
        ("#begin document (d); part 000\nd 0 0 x -\n", 2, "not closed"),
        (
            "#begin document (d); part 000\n#end document\n#begin document (d); part 000\n",
            3,
            "twice",
        ),
    ],
)
def test_malformed_files_name_file_line_and_field(text: str, line: int, message: str) -> None:
    with pytest.raises(DatasetError) as err:
        parse_conll(io.StringIO(text), file="resp.conll")
    assert err.value.file == "resp.conll"
    assert err.value.line == line
    assert message in str(err.value)
    assert str(err.value).startswith("file resp.conll, line")


def test_missing_file_is_a_dataset_error(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="no such file"):
        read_conll(tmp_path / "nope.conll")


def test_winobias_conll_files_parse(shared_data: Path) -> None:
    docs = read_conll(
        shared_data / "winobias-en" / "conll_format" / "dev_type1_pro_stereotype.v4_auto_conll"
    )
    assert len(docs) == 396
    first = next(d for d in docs if d.doc_id == "nw/dev_type1/stereotype//0")
    assert first.tokens[:2] == ["The", "developer"]
    assert first.clusters == [[(0, 1), (7, 7)]]
