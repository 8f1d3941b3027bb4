"""Class mode: predict, vote and reveal with the whole room.

- `store`: the contract every class store keeps (`ClassStore`, the class record, `summary_csv`); `sqlite_store`
  (default, one machine) and `redis_store` (PLAYGROUND_REDIS_URL, several machines) keep it.
- `stores`: which of the two a server process opens (`open_store`), and the data folder.
- `identity`: a browser's signed id (a student, a teacher's claim).
- `questions`: what the pages' prediction questions share (options, ties, the heavy objects they read); each page's
  own questions and the lessons stand with the pages, in engine.chapter.
- `chart`: the answers' histogram.
"""
