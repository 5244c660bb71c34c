"""What comes in: ``match`` (the match file's models, validation and loading), ``formats`` (stage
types, roles, speaking orders), ``rubric`` (rubric presets and their dimensions), ``evidence`` (the
documents a fact check reads), ``jsontext`` / ``yamltext`` (the strict readers of untrusted JSON and
YAML) and ``convert`` (upstream datasets turned into match files)."""
