
Bpresent_value