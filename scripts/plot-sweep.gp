# gnuplot: a metric against a swept key, one line per group, with error bars.
# Input: `data`, blocks separated by two blank lines, each starting with its title in quotes and
# then rows "x mean ci95 stddev n"; `blocks` is their number (scripts/plot-sweep writes it from results.csv).
# gnuplot -e "blocks=3; data='agg.dat'; metric='jct_mean_s'; xkey='seed'; out='plot.png'" scripts/plot-sweep.gp
set terminal pngcairo size 900,560 noenhanced font ",11"
set output out
set title sprintf("%s against %s (mean and 95%% confidence interval over the other keys, e.g. seeds)", metric, xkey)
set xlabel xkey
set ylabel metric
set key outside right top
set grid
plot for [i=0:blocks-1] data index i using 1:2:3 with yerrorlines lw 2 pt 7 title columnheader(1)
