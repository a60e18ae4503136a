2abc2com2def2netB
substrings