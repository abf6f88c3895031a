"""Run files to reduced run points: globs, parallel reduction, the content-hash cache."""
