"""What comes in: ``match`` (the match file's models and their validation against the format),
``stages`` (a stage: its utterances, exchanges and machine-transcript mark, and the rules a stage
keeps by itself), ``gold`` (the gold labels a match may carry, never shown to a model),
``match_file`` (reading one; one-line errors from ``field_errors``), ``formats`` (stage types, roles, speaking orders), ``rubric`` (rubric presets and
their dimensions), ``evidence`` (the documents a fact check reads), ``jsontext`` / ``yamltext`` (the
strict readers of untrusted JSON and YAML) and ``convert`` (upstream datasets turned into match files)."""
