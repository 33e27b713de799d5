"""Known releases: a source is named as the published release when every file's SHA-256 is the
release's (or a hub load names its id and revision), a sample as such, anything else a modified
copy with its hash; a task without known releases gets no record."""

from __future__ import annotations

from winoscope.datasets.releases import identify, release_line, release_record, releases_of

WB = "2e2a638adbecd9f3cf84e961b6c2e4720fa941d13637fda06e328e65f2deab27"
WP = {
    "double": "55e334de6028f1e51cfa58825ec500fa8fedf38d07bd1807fe6101d4b06217aa",
    "single": "c1e271dd0f20c2720aa00d630b0f67835f8db30e210695fc248ff82ddc7aaac0",
    "forced_choice": "3f860f196353f6bd22d7d2f4c31349784cc440ddf063012f28e78ade7836f4c4",
}


def test_the_evaluators_pins() -> None:
    (wb,) = releases_of("winobias-uk")
    assert (wb.hub_id, wb.revision) == (
        "FairForget/WinoBias-UK-Natural",
        "1d17b7dbc99ecfa14a1cc99cd9f3aab9e1824786",
    )
    assert [(f.path, f.rows) for f in wb.files] == [("data/validation.csv", 1674)]
    (wp,) = releases_of("winopron-uk")
    assert {f.path.rsplit("/", 1)[1][:-4]: f.sha256 for f in wp.files} == WP
    assert identify(WB) == (wb, wb.files[0])
    assert identify("0" * 64) is None


def test_a_file_with_the_release_hash_is_the_release() -> None:
    rec = release_record("winobias-uk", {"kind": "file", "location": "v.csv", "sha256": WB})
    assert rec is not None and rec["status"] == "published"
    assert rec["revision"] == "1d17b7dbc99ecfa14a1cc99cd9f3aab9e1824786"
    assert "published release FairForget/WinoBias-UK-Natural" in str(release_line(rec))


def test_all_three_winopron_files_must_match() -> None:
    joined = ";".join(f"{k}={v}" for k, v in WP.items())
    rec = release_record("winopron-uk", {"kind": "file", "location": "d", "sha256": joined})
    assert rec is not None and rec["status"] == "published"
    one_changed = joined.replace(WP["single"], "f" * 64)
    rec = release_record("winopron-uk", {"kind": "file", "location": "d", "sha256": one_changed})
    assert rec is not None and rec["status"] == "modified copy"
    assert "f" * 64 in str(release_line(rec))


def test_hub_loads_samples_and_other_tasks() -> None:
    hub = {
        "kind": "hub",
        "location": "FairForget/WinoBias-UK-Natural",
        "commit": "1d17b7dbc99ecfa14a1cc99cd9f3aab9e1824786",
    }
    assert release_record("winobias-uk", hub)["status"] == "published"  # type: ignore[index]
    other = {**hub, "commit": "a" * 40}
    assert release_record("winobias-uk", other)["status"] == "modified copy"  # type: ignore[index]
    sample = {"kind": "sample", "location": "winoscope:x", "sha256": "b" * 64}
    assert release_record("winobias-uk", sample)["status"] == "sample"  # type: ignore[index]
    assert release_record("swewinogender", {"kind": "file", "sha256": WB}) is None
