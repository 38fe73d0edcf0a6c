"""What a run leaves for people: the HTML report and its figures, the run summary's text."""
