
B
past_value