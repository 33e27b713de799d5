"""Occupation pipelines that run work and write files: a corpus association scan
(:mod:`.associate`) and a run correlated with occupation statistics (:mod:`.correlate`)."""
