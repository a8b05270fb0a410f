# bench/lcmp.awk: a reference's logit frames against another's, read
# interleaved (a reference line, then the other's, as paste -d '\n'
# gives them): "maxabs rms rel kl maxkl top1/n" over all positions, or
# "-" when the frames do not match.  Used by logerr.sh and kverr.sh.
NR % 2 == 1 { n = split($0, r, " "); next }
{
	if (split($0, g, " ") != n) { bad = 1; exit 1 }
	d2 = 0; r2 = 0; rm = r[1]; gm = g[1]; ri = 1; gi = 1
	for (i = 1; i <= n; i++) {
		d = g[i] - r[i]
		if (d < 0) d = -d
		if (d > mx) mx = d
		d2 += d * d; r2 += r[i] * r[i]
		if (r[i] > rm) { rm = r[i]; ri = i }
		if (g[i] > gm) { gm = g[i]; gi = i }
	}
	sd += d2; cnt += n
	if (r2 > 0 && sqrt(d2 / r2) > rel) rel = sqrt(d2 / r2)
	# KL(reference || other) of the softmaxes, each shifted by its max
	zr = 0; zg = 0
	for (i = 1; i <= n; i++) { zr += exp(r[i] - rm); zg += exp(g[i] - gm) }
	lr = rm + log(zr); lg = gm + log(zg); kl = 0
	for (i = 1; i <= n; i++)
		kl += exp(r[i] - lr) * ((r[i] - lr) - (g[i] - lg))
	skl += kl; if (kl > mkl) mkl = kl
	top += ri == gi; pos++
}
END {
	if (bad || !pos) { print "-"; exit 0 }
	printf "%.2g %.2g %.2g %.2g %.2g %d/%d\n", mx, sqrt(sd / cnt),
	    rel, skl / pos, mkl, top, pos
}
