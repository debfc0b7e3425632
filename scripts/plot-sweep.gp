# gnuplot: a metric against a swept key, one line per group, with error bars.
# Input: `data`, blocks separated by two blank lines, each starting with its title in quotes and
# then rows "x mean ci95 stddev n low high" (the interval cut to the metric's domain); `blocks` is
# their number, `scale` divides the metric (3600 for hours), `lo` is the metric's least value
# (NaN: none), `terminal`, `xlabel` and `ylabel` as scripts/plot-sweep sets them.
# gnuplot -e "blocks=3; data='agg.dat'; out='plot.png'; scale=1; lo=0; terminal='pngcairo'; xlabel='x'; ylabel='y'" scripts/plot-sweep.gp
set terminal @terminal
set output out
# Two lines of title with room above them, so that nothing is cut.
set tmargin 4
set title ylabel . " against " . xlabel . "\nmean and 95% confidence interval over the runs at each point (seeds)" noenhanced
set xlabel xlabel noenhanced
set ylabel ylabel noenhanced
# Room at both ends of the x axis and above the highest interval: no error bar meets the frame.
set offsets graph 0.05, graph 0.05, graph 0.08, 0
if (lo == lo) { set yrange [lo:*] }
set key inside top left opaque box noenhanced
set grid
# The palette of dlsim plot (Okabe and Ito), then dashed: no two lines alike.
array c[8] = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"]
plot for [i=0:blocks-1] data index i using 1:($2/scale):($6/scale):($7/scale) with yerrorlines lw 2 pt 7 lc rgb c[i%8+1] dt i/8+1 title columnheader(1)
