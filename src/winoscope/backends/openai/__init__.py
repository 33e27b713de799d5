"""``openai:MODEL``: any OpenAI-compatible server, over ``aiohttp`` (:mod:`.backend`), with its
options (:mod:`.options`), HTTP session (:mod:`.http`) and answer parsing (:mod:`.parse`)."""
