"""Speech in: a stage's recording turned into the stage's text on the chair's machine, in data-flow
order: ``audio`` (decode one recording, or refuse it), ``recognizer`` (faster-whisper with a model
folder: segments with times and confidence), ``turns`` (the chair's turn marks for interactive
stages) and ``stage`` (the stage in the match format: attributed, marked as machine-made).

Needs the optional extra ``pip install 'adjudicator[audio]'``; without it every entry point raises a
one-line :class:`~adjudicator.errors.InputError` saying so. Nothing here is imported by the rest of
the package except the commands that take audio (``adjudicate transcribe``, ``live push --audio``).
"""
