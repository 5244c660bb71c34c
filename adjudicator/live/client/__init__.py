"""The organiser's side of the live server.

- :mod:`.connection`   the HTTP client used by ``adjudicate live push|create|close|status|replay``
- :mod:`.replay`       nominal stage durations and the replay loop (demos and tests)
"""
