"""The machinery under the parts: nothing here is in the chapter.

- cache: the prepared cache (memory-mapped .npy files, one copy per machine; `python -m engine.prepare`
  fills it, from above the parts).
- machine_slots: slots shared by every process of a machine (live trainings, heavy questions at once).
- file_lock: an exclusive lock on a file (fcntl where there is one, a fallback elsewhere).
"""
