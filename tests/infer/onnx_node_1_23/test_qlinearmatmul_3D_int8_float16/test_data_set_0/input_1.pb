
Ba_scaleJÂ