# Draws docs/images/mps_dambreak_front.png from docs/data/martin_moyce_1952.csv and
# docs/data/mps_dambreak_front.csv (run from the repository root: python3 scripts/plot_mps_front.py).
# Further arguments LABEL=FILE add the front.csv of `partcl run dambreak` runs (columns t,T,x,Z),
# e.g. "l0 = a/64=docs/data/mps_dambreak_front_a64.csv"; --out PNG writes elsewhere; --column2a
# draws only the given runs of the experiment's column a x 2a (not the square test's run), with
# Ritter's bound for that column, 1 + 2T (docs/images/mps_dambreak_third_pass.png, docs/mps.md).
import csv, sys, matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
def read(p):
    rows=[l for l in open(p) if l.strip() and not l.startswith('#') and not l.startswith('T')]
    return [float(r.split(',')[0]) for r in rows],[float(r.split(',')[1]) for r in rows]
T,Z=read('docs/data/martin_moyce_1952.csv'); t,z=read('docs/data/mps_dambreak_front.csv')
fig,ax=plt.subplots(figsize=(5,3.6),dpi=110)
ax.plot(T,Z,'ko',label='Martin & Moyce (1952) (column $a \\times 2a$: docs/mps.md)')
ax.fill_between(T,[0.9*v for v in Z],[1.1*v for v in Z],color='0.85',label='±10%')
out='docs/images/mps_dambreak_front.png'
args=sys.argv[1:]
if '--out' in args:
    i=args.index('--out'); out=args[i+1]; del args[i:i+2]
column='--column2a' in args
if column:
    args.remove('--column2a')
else:
    ax.plot(t,z,'r.-',label='partcl explicit MPS, square column, $l_0=a/20$ (test)')
for arg,style in zip(args,['g-','m-','c-','y-']):
    label,path=arg.rsplit('=',1)
    rows=list(csv.DictReader(open(path)))
    ax.plot([float(r['T']) for r in rows],[float(r['Z']) for r in rows],style,lw=1,
            label=('partcl, column $a \\times 2a$, ' if column else 'partcl run dambreak, ')+label)
if column:
    ax.plot([0,1.7],[1,1+2*1.7],'b--',lw=0.8,label='Ritter (inviscid) $1+2T$')
else:
    ax.plot([0,3.4],[1,1+2**0.5*3.4],'b--',lw=0.8,label='Ritter (inviscid) $1+\\sqrt{2}T$')
ax.set_xlim(0,2.6 if column else 3.4); ax.set_ylim(0.8,3.6 if column else 4.4); ax.set_xlabel('$T = t\\sqrt{2g/a}$'); ax.set_ylabel('$Z = x/a$')
if column:  # below the axes: the runs and the experiment fill the plot
    ax.legend(fontsize=7,loc='upper center',bbox_to_anchor=(0.5,-0.2)); fig.savefig(out,bbox_inches='tight')
else:
    ax.legend(fontsize=7,loc='upper left'); fig.tight_layout(); fig.savefig(out)
