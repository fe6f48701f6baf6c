"""The known slips of notebook 06_transformer_block's visible checks: generated, do not edit.

Made by scripts/release.py (`make release`): each mistake of the grader's catalogue
of notebook 06, run on the visible cases of
attnbook/checks/nb06.py; its output (a wrong program's, on visible inputs)
on the first case that tells it apart from the reference, None for a part it gets
right. A check names the slip whose output a learner's matches.
"""

# ruff: noqa: E501

from math import inf, nan  # noqa: F401 (outputs that hold them)

# function: {case id: [(mistake, detector, its output)]}
SLIPS = {
    'layer_norm': {
        'worked': [
            ('unbiased variance', 'HINT_UNBIASED_VARIANCE', [
                [-1.0834726777719228, -0.3611575592573076, 0.3611575592573076, 1.0834726777719228],
                [0.0, 0.0, 0.0, 0.0],
            ]),
            ('eps outside the square root', 'HINT_EPS_ADDED_OUTSIDE_SQUARE', [
                [-1.0964639857893408, -0.3654879952631136, 0.3654879952631136, 1.0964639857893408],
                [0.0, 0.0, 0.0, 0.0],
            ]),
            ('no eps at all', 'HINT_CONSTANT_TOKEN', [
                [-1.3416407864998738, -0.4472135954999579, 0.4472135954999579, 1.3416407864998738],
                [nan, nan, nan, nan],
            ]),
            ('normalising over the batch axis', 'HINT_LAST_AXIS', [
                [-0.7071067811865475, 0.0, 0.7071067811865475, 0.8944271909999159],
                [0.7071067811865475, 0.0, -0.7071067811865475, -0.8944271909999159],
            ]),
            ('statistics over the whole tensor', 'HINT_LAST_AXIS', [
                [-1.2909944487358056, -0.2581988897471611, 0.7745966692414834, 1.8073922282301278],
                [-0.2581988897471611, -0.2581988897471611, -0.2581988897471611, -0.2581988897471611],
            ]),
            ('sqrt of the standard deviation', 'HINT_SQRT_OF_STD', [
                [-1.2824570085129603, -0.4274856695043201, 0.4274856695043201, 1.2824570085129603],
                [0.0, 0.0, 0.0, 0.0],
            ]),
            ('eps argument ignored', 'HINT_EPS_ARGUMENT_IGNORED', [
                [-1.3416354199689269, -0.447211806656309, 0.447211806656309, 1.3416354199689269],
                [0.0, 0.0, 0.0, 0.0],
            ]),
            ('gamma and beta swapped', 'HINT_GAMMA_BETA_SWAPPED', [
                [1.0, 1.0, 1.0, 1.0],
                [1.0, 1.0, 1.0, 1.0],
            ]),
            ('RMS normalisation (mean not subtracted)', 'HINT_MEAN_NOT_SUBTRACTED', [
                [0.3592106040535498, 0.7184212081070996, 1.0776318121606494, 1.4368424162141993],
                [0.9701425001453319, 0.9701425001453319, 0.9701425001453319, 0.9701425001453319],
            ]),
            ('variance of h around zero (mean of h^2)', 'HINT_VARIANCE_TAKEN_AROUND_ZERO', [
                [-0.5388159060803247, -0.1796053020267749, 0.1796053020267749, 0.5388159060803247],
                [0.0, 0.0, 0.0, 0.0],
            ]),
            ('divided by the L2 norm of the centred token', 'HINT_DIVIDED_L2_NORM', [
                [-0.6546536707079772, -0.2182178902359924, 0.2182178902359924, 0.6546536707079772],
                [0.0, 0.0, 0.0, 0.0],
            ]),
            ('variance divided by h.shape[0] instead of d', 'HINT_VARIANCE_BY_BATCH', [
                [-0.9045340337332909, -0.30151134457776363, 0.30151134457776363, 0.9045340337332909],
                [0.0, 0.0, 0.0, 0.0],
            ]),
            ('eps added after the division', 'HINT_CONSTANT_TOKEN', [
                [-1.0916407864998738, -0.19721359549995793, 0.6972135954999579, 1.5916407864998738],
                [nan, nan, nan, nan],
            ]),
            ('subtracts the mean with a sign slip (h + mean)', 'HINT_MEAN_ADDED', [
                [2.8577380332470415, 3.6742346141747673, 4.4907311951024935, 5.30722777603022],
                [8.0, 8.0, 8.0, 8.0],
            ]),
        ],
        'gamma, beta': [
            ('gamma and beta ignored', 'HINT_GAMMA_BETA_NOT_APPLIED', [
                [-1.2247448713915892, -0.4082482904638631, 0.4082482904638631, 1.2247448713915892],
                [0.0, 0.0, 0.0, 0.0],
            ]),
            ('beta added before scaling by gamma', 'HINT_BETA_ADDED_BEFORE_SCALING', [
                [-2.4494897427831783, 0.5917517095361369, 0.20412414523193154, -0.22474487139158916],
                [0.0, 1.0, 0.0, 1.0],
            ]),
        ],
        '3-D': [
            ('statistics over a hard-coded dim=1', 'HINT_LAST_AXIS', [
                [
                    [0.1794810347749427, -1.048618046305682, -0.28162127948834864, -0.9851717249349496, 0.6078760262301881],
                    [-0.24645473450576605, 1.0330662698255917, 1.2520402124107686, -0.7933615266171046, 1.5650888974031603],
                    [2.476801934019875, 0.5400519563174011, -0.703484647844783, -0.06262077163601909, -2.0344175685790673],
                ],
                [
                    [0.6262148293664654, -0.016962686746761407, -1.002557978923612, -1.1722251022276802, -1.988964972983351],
                    [-0.5651221984359817, -0.8043519075330656, 1.040992574475267, -0.38959391159724743, 1.671542804615177],
                    [2.3487356033585685, 1.3458147741171376, 0.22849968952598299, -0.2793350093631457, 0.455969523422454],
                ],
            ]),
            ('variance over a hard-coded dim=1 (right for 2-D only)', 'HINT_VARIANCE_DIM_1', [
                [
                    [1.226803825698434, -0.18761325304868048, -0.2087579142171987, -0.47312511498700216, 0.7346228606685752],
                    [-1.1111813626285163, 1.070202116329764, 1.0272034698685737, -1.037120504808773, -0.9526208087723664],
                    [1.4724024360688244, 1.3722161026522266, -0.9829998320710318, -0.08937765627100958, -2.2947422695904933],
                ],
                [
                    [0.8309529792873326, 1.3623173899391592, 0.5923567979111911, -1.1620244381331568, -0.3872492125652297],
                    [-1.1117487034894302, -0.2081104147222625, 0.29246493757158937, -0.1974303490410464, 2.495884764889615],
                    [1.5933529120832772, 1.0748435377184096, -1.261300407676619, -0.6075930127584304, -0.8271115635627112],
                ],
            ]),
        ],
    },
    'MLP': {
        'worked': [
            ('tanh approximation of GELU', 'HINT_TANH_GELU', [
                [0.5157535076141357, 0.42849206924438477],
                [0.7126528024673462, 0.1423100233078003],
            ]),
            ('ReLU instead of GELU', 'HINT_RELU', [
                [0.5, 1.0],
                [0.75, 0.625],
            ]),
            ('no activation', 'HINT_NO_ACTIVATION', [
                [1.25, -0.5],
                [1.125, -1.375],
            ]),
            ('an extra GELU at the output', 'HINT_EXTRA_GELU', [
                [0.35942795872688293, 0.28544750809669495],
                [0.5430817008018494, 0.07937264442443848],
            ]),
            ('residual added inside the MLP', 'HINT_RESIDUAL_INSIDE_MLP', [
                [1.5157017707824707, 0.9286558032035828],
                [1.2127158641815186, -0.10742013156414032],
            ]),
            ('SiLU instead of GELU', 'HINT_SILU', [
                [0.5518456697463989, 0.23561257123947144],
                [0.662134051322937, -0.07918322086334229],
            ]),
            ('sigmoid approximation of GELU, x * sigmoid(1.702 x)', 'HINT_SIGMOID_GELU', [
                [0.5139983892440796, 0.4483627676963806],
                [0.7160058617591858, 0.15089762210845947],
            ]),
            ('GELU applied to the input before fc_in', 'HINT_GELU_ON_INPUT', [
                [1.084764838218689, -0.568361222743988],
                [0.5148131847381592, -0.6922709941864014],
            ]),
            ('a LayerNorm inside the MLP', 'HINT_NORM_INSIDE_MLP', [
                [2.0545573234558105, 1.0111720561981201],
                [2.054642677307129, 1.0112453699111938],
            ]),
        ],
    },
    'count_parameters': {
        'gpt2': [
            ('attention biases forgotten', 'HINT_ATTENTION_BIASES_NOT_COUNTED', 124453201.0),
            ('LayerNorm parameters forgotten', 'HINT_LAYERNORM_PARAMETERS_NOT_COUNTED', 124451665.0),
            ('the final LayerNorm forgotten', 'HINT_FINAL_LAYERNORM_NOT_COUNTED', 124488529.0),
            ("the head's bias forgotten", 'HINT_HEAD_BIAS_NOT_COUNTED', 124439808.0),
            ('tied head weight counted twice', 'HINT_TIED_COUNTED_TWICE', 163087441.0),
            ('attention counted once per head', 'HINT_PER_HEAD_COUNTED', 436322641.0),
            ('only one block counted', 'HINT_ONLY_ONE_BLOCK_COUNTED', 46523473.0),
            ('LayerNorm counted with gamma only', 'HINT_LAYERNORM_COUNTED_GAMMA_ONLY', 124470865.0),
            ('MLP biases forgotten', 'HINT_MLP_BIASES_NOT_COUNTED', 124443985.0),
            ('W_O forgotten (three projections)', 'HINT_W_O_NOT_COUNTED', 117402961.0),
            ('n_layers written in as 2', 'HINT_LAYERS_HARD_CODED', 53611345.0),
            ('learned position table counted as max_len (no d)', 'HINT_LEARNED_TABLE_SIZE', 123704657.0),
            ('one bias vector for all four projections', 'HINT_SHARED_BIAS', 124462417.0),
            ('one LayerNorm per block', 'HINT_ONE_LAYERNORM_PER_BLOCK', 124471633.0),
            ('fc_out forgotten (one MLP layer)', 'HINT_FC_OUT_NOT_COUNTED', 96169297.0),
            ('tying subtracts 2 V d (embedding and head both dropped)', 'HINT_EMBEDDING_NOT_COUNTED', 85892689.0),
        ],
        'sinusoidal, d_hidden=None, tied=False': [
            ('position table counted for every option', 'HINT_FIXED_TABLE_COUNTED', 7543.0),
            ('token embedding not counted', 'HINT_EMBEDDING_NOT_COUNTED', 6983.0),
        ],
        'sinusoidal, d_hidden=24, tied=False': [
            ('d_hidden ignored', 'HINT_D_HIDDEN_IGNORED', 7351.0),
        ],
        'rope, d_hidden=None, tied=False': [
            ('RoPE tables counted as parameters', 'HINT_ROPE_COUNTED', 7399.0),
            ('a position table counted for rope too', 'HINT_FIXED_TABLE_COUNTED', 7543.0),
        ],
    },
}
