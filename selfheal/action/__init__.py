"""The GitHub Actions adapter: inputs, event -> request, outputs, job summary, annotations. Thin."""
