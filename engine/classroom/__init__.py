"""Class mode: predict, vote and reveal with the whole room.

- `store`: the class record every server process shares (`ClassStore`, `open_store`, `summary_csv`),
  with `sqlite_store` (default, one machine) and `redis_store` (PLAYGROUND_REDIS_URL, several machines).
- `questions`: the prediction questions each page offers, answered by the engine.
- `lesson`: the chapter as scenes (page links with their questions).
"""
