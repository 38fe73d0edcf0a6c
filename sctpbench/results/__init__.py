"""The one owner of results folders: run, session and campaign folders, their files' format,
their readers and writers, and its version (files.py lists the files).

Every other module reads and writes these files through this package, so a renamed field is
a type error here, not a silent None somewhere else, and a missing or broken file is one
clear line naming it (jsonfile.py, parquetfile.py). Standard library (and plan/data.py) only
at import: the guest's backends import it; pyarrow and PyYAML are imported by the functions
that read and write tables and experiment.yaml.
"""
