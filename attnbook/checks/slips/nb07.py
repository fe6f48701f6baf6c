"""The known slips of notebook 07_training's visible checks: generated, do not edit.

Made by scripts/release.py (`make release`): each mistake of the grader's catalogue
of notebook 07, run on the visible cases of
attnbook/checks/nb07.py; its output (a wrong program's, on visible inputs)
on the first case that tells it apart from the reference, None for a part it gets
right. A check names the slip whose output a learner's matches.
"""

# ruff: noqa: E501

from math import inf, nan  # noqa: F401 (outputs that hold them)

# function: {case id: [(mistake, its hint, its output)]}
SLIPS = {
    'make_batch': {
        'pad is eos': [
            ('loss mask from the ids (targets != pad_id), not from the lengths', 'loss_mask marks the real targets by position, whatever their ids: True on the first len(seq) - 1 of row b. Comparing ids with pad_id also drops a real target that equals it (GPT-2 setups pad with the <EOS> id)', (
                None,
                None,
                [
                    [True, False],
                    [False, False],
                ],
            )),
        ],
        'pad is real': [
            ('loss mask from the ids (inputs != pad_id), not from the lengths', 'loss_mask marks the real targets by position, whatever the ids: True on the first len(seq) - 1 of row b. Comparing inputs with pad_id also drops a real input that equals it', (
                None,
                None,
                [
                    [True, False, False],
                    [True, False, False],
                ],
            )),
        ],
        'email': [
            ('targets not shifted', 'teacher forcing: inputs are ids[:-1] (everything but the last token) and targets are ids[1:] (everything but the first), so target t is the token after input t', (
                None,
                [
                    [1.0, 61.0, 68.0, 76.0, 63.0],
                    [1.0, 68.0, 63.0, 0.0, 0.0],
                ],
                None,
            )),
            ('shifted the wrong way', 'teacher forcing: inputs are ids[:-1] (everything but the last token) and targets are ids[1:] (everything but the first), so target t is the token after input t; the model reads the past and predicts the future', (
                [
                    [61.0, 68.0, 76.0, 63.0, 2.0],
                    [68.0, 63.0, 2.0, 0.0, 0.0],
                ],
                [
                    [1.0, 61.0, 68.0, 76.0, 63.0],
                    [1.0, 68.0, 63.0, 0.0, 0.0],
                ],
                None,
            )),
            ('whole sequences, no shift (L too long)', 'one row per sequence; L = (length of the longest sequence) - 1, because inputs drop the last id and targets the first', (
                [
                    [1.0, 61.0, 68.0, 76.0, 63.0, 2.0],
                    [1.0, 68.0, 63.0, 2.0, 0.0, 0.0],
                ],
                [
                    [61.0, 68.0, 76.0, 63.0, 2.0, 0.0],
                    [68.0, 63.0, 2.0, 0.0, 0.0, 0.0],
                ],
                [
                    [True, True, True, True, True, True],
                    [True, True, True, True, False, False],
                ],
            )),
            ('loss mask inverted', 'loss_mask is True on REAL targets and False on padded ones', (
                None,
                None,
                [
                    [False, False, False, False, False],
                    [False, False, False, True, True],
                ],
            )),
            ('loss mask one too long', 'a sequence of n ids has n - 1 targets: loss_mask[row, :n - 1] = True', (
                None,
                None,
                [
                    [True, True, True, True, True],
                    [True, True, True, True, False],
                ],
            )),
            ('end token excluded from the loss mask', '<EOS> is a real target: the model must learn when an email ends', (
                None,
                None,
                [
                    [True, True, True, True, False],
                    [True, True, False, False, False],
                ],
            )),
            ('padding on the left', 'pad on the right: row b starts at position 0 and the padding follows it', (
                [
                    [1.0, 61.0, 68.0, 76.0, 63.0],
                    [0.0, 0.0, 1.0, 68.0, 63.0],
                ],
                [
                    [61.0, 68.0, 76.0, 63.0, 2.0],
                    [0.0, 0.0, 68.0, 63.0, 2.0],
                ],
                [
                    [True, True, True, True, True],
                    [False, False, True, True, True],
                ],
            )),
            ("targets padded with the row's <EOS> (its last id), not pad_id", "pad targets with pad_id, as inputs: after a row's last real target (its <EOS>) come pad_id, not more copies of <EOS>", (
                None,
                [
                    [61.0, 68.0, 76.0, 63.0, 2.0],
                    [68.0, 63.0, 2.0, 2.0, 2.0],
                ],
                None,
            )),
            ('padded targets written as -100 (ignore_index)', 'write pad_id into every padded position, targets included; loss_mask, not a special target value, marks the padding', (
                None,
                [
                    [61.0, 68.0, 76.0, 63.0, 2.0],
                    [68.0, 63.0, 2.0, -100.0, -100.0],
                ],
                None,
            )),
            ('L from the shortest sequence (longer ones truncated)', 'one row per sequence; L = (length of the longest sequence) - 1, because inputs drop the last id and targets the first', (
                [
                    [1.0, 61.0, 68.0],
                    [1.0, 68.0, 63.0],
                ],
                [
                    [61.0, 68.0, 76.0],
                    [68.0, 63.0, 2.0],
                ],
                [
                    [True, True, True],
                    [True, True, True],
                ],
            )),
            ('rows built as [[pad_id] * L] * B (one shared list)', '[[pad_id] * L] * B repeats ONE list B times, so writing row b writes every row: build each row on its own (a list comprehension, or torch.full((B, L), pad_id))', (
                [
                    [1.0, 68.0, 63.0, 76.0, 63.0],
                    [1.0, 68.0, 63.0, 76.0, 63.0],
                ],
                [
                    [68.0, 63.0, 2.0, 63.0, 2.0],
                    [68.0, 63.0, 2.0, 63.0, 2.0],
                ],
                [
                    [True, True, True, True, True],
                    [True, True, True, True, True],
                ],
            )),
            ('each row one target short (n = len(seq) - 2)', 'teacher forcing: inputs are ids[:-1] (everything but the last token) and targets are ids[1:] (everything but the first), so target t is the token after input t', (
                [
                    [1.0, 61.0, 68.0, 76.0, 0.0],
                    [1.0, 68.0, 0.0, 0.0, 0.0],
                ],
                [
                    [61.0, 68.0, 76.0, 63.0, 0.0],
                    [68.0, 63.0, 0.0, 0.0, 0.0],
                ],
                [
                    [True, True, True, True, False],
                    [True, True, False, False, False],
                ],
            )),
        ],
        'three': [
            ('padding hard-coded as 0', 'fill the padded positions with the pad_id argument, not 0', (
                [
                    [1.0, 5.0, 6.0, 0.0, 0.0],
                    [1.0, 4.0, 0.0, 0.0, 0.0],
                    [1.0, 3.0, 3.0, 8.0, 3.0],
                ],
                [
                    [5.0, 6.0, 2.0, 0.0, 0.0],
                    [4.0, 2.0, 0.0, 0.0, 0.0],
                    [3.0, 3.0, 8.0, 3.0, 2.0],
                ],
                None,
            )),
            ('rows sorted by length, longest first', 'keep the rows in the order of the sequences: row b is sequence b', (
                [
                    [1.0, 3.0, 3.0, 8.0, 3.0],
                    [1.0, 5.0, 6.0, 7.0, 7.0],
                    [1.0, 4.0, 7.0, 7.0, 7.0],
                ],
                [
                    [3.0, 3.0, 8.0, 3.0, 2.0],
                    [5.0, 6.0, 2.0, 7.0, 7.0],
                    [4.0, 2.0, 7.0, 7.0, 7.0],
                ],
                [
                    [True, True, True, True, True],
                    [True, True, True, False, False],
                    [True, True, False, False, False],
                ],
            )),
        ],
    },
    'lm_loss': {
        'worked': [
            ('padding counted in the loss', 'multiply the per-token losses by loss_mask and count only real targets', 0.8437919020652771),
            ('mean over the batch of per-sequence means', 'every real target of the batch weighs the same: add the losses of all real targets and divide by their number (loss_mask.sum()), not by the number of sequences or positions', 1.0397207736968994),
            ('sum instead of mean', 'divide the summed loss by loss_mask.sum()', 4.852030277252197),
            ('masked sum divided by all positions', 'every real target of the batch weighs the same: add the losses of all real targets and divide by their number (loss_mask.sum()), not by the number of sequences or positions', 0.8086717128753662),
            ('divided by the number of emails', 'every real target of the batch weighs the same: add the losses of all real targets and divide by their number (loss_mask.sum()), not by the number of sequences or positions', 2.4260151386260986),
            ('softmax over the positions', 'normalise over the last axis (the vocabulary), dim=-1', 0.8417307734489441),
            ('loss in bits', 'the loss is in nats: use the natural log (F.cross_entropy does)', 1.75),
            ('the mask applied to the logits', 'multiply the per-token LOSSES by loss_mask; zeroed logits still give a loss of log V', 1.906154751777649),
            ('targets shifted again inside the loss', 'make_batch already shifted: logits[b, t] is scored against targets[b, t], the same position', 1.589026927947998),
            ('floor division by the token count', 'true division for the mean over the real targets (// rounds down)', 1.0),
            ('unmasked sum over the real count', 'multiply the per-token losses by loss_mask before summing', 1.2656878232955933),
            ('per-position means (batch axis reduced first)', 'every real target of the batch weighs the same: add the losses of all real targets and divide by their number (loss_mask.sum()), not by the number of sequences or positions; score every row of the batch: flatten (B, L, V) to (B * L, V), not logits[0]', 1.3862943649291992),
        ],
        'large': [
            ('log of softmax overflows', 'log(softmax(x)) underflows to log(0) = -inf for large logits: use torch.log_softmax or F.cross_entropy', nan),
        ],
    },
    'train_step': {
        'two steps': [
            ('no zero_grad', 'call optimizer.zero_grad() before loss.backward(); PyTorch ADDS new gradients to the old ones', (
                None,
                [-0.011986265890300274, 0.00213890359736979, -0.008267814293503761, -0.02956840582191944, -0.00294602382928133, 0.006009941920638084, -0.020963085815310478, 0.012675518169999123, -0.027741359546780586, 0.009444636292755604, 0.021212318912148476, 0.02310921438038349, -0.013222083449363708, -0.015134327113628387, 0.021968483924865723, -0.003937981091439724, 0.022603923454880714, 0.016018200665712357, 0.007794621866196394, -0.000689316017087549, 0.0007086771074682474, 0.001509227091446519, 0.012911850586533546, -0.0018268696730956435, 0.00847297441214323, 0.004381963051855564, 0.007382696028798819, -0.020944323390722275, -0.014067062176764011, -0.0016495498130097985, 0.0307739470154047, 0.013683202676475048, 0.011496718972921371, -0.03985339403152466, -0.002775459550321102, -0.018210917711257935, -0.022684188559651375, -0.017272233963012695, 0.0142130171880126, -0.0023446676786988974, -0.0054547605104744434, -0.012982613407075405, -0.008726416155695915, 0.012953403405845165, 0.001016313093714416, 0.019949480891227722, 0.017573896795511246, 0.00244439160451293, 0.010409471578896046, 0.025187235325574875, 0.003078991547226906, -0.016894329339265823, 0.013859032653272152, 0.006814800202846527, -0.018805930390954018, -0.01364501379430294, 0.015215962193906307, 0.0005866652354598045, 0.00644440483301878, 0.015851523727178574, -0.0030158748850226402, -0.003095387713983655, 0.019807111471891403, 0.031833715736866],
            )),
            ('no clipping', "clip after loss.backward() and before optimizer.step(), with torch.nn.utils.clip_grad_norm_ on the model's parameters", (
                [2.425344705581665, 2.4434773921966553],
                [-0.011986265890300274, -0.09732020646333694, 0.044965699315071106, -0.02031245268881321, -0.002942063845694065, 0.0060279215686023235, -0.020955612882971764, 0.012676446698606014, -0.02773261070251465, 0.009448297321796417, 0.021202828735113144, 0.02310454659163952, -0.01321670413017273, -0.015139568597078323, 0.021996425464749336, -0.004004386719316244, 0.02043110877275467, 0.013859301805496216, 0.0062696305103600025, -0.001322275958955288, 0.007029358763247728, -0.011897478252649307, 0.010694672353565693, -0.006276391446590424, 0.008489668369293213, 0.0038414127193391323, 0.008829116821289062, -0.02446581795811653, -0.014158378355205059, -0.008644722402095795, 0.03187623247504234, 0.011669456958770752, 0.01054320577532053, -0.04201001301407814, -0.00972591433674097, -0.015678271651268005, -0.023332735523581505, -0.018085936084389687, 0.014928695745766163, -0.008868792094290257, -0.0025044286157935858, -0.013131470419466496, -0.0049893856048583984, 0.008178479969501495, 0.007353429216891527, 0.011994360014796257, 0.020221050828695297, -0.0016171946190297604, 0.011093469336628914, 0.024823268875479698, 0.00023039779625833035, -0.020441662520170212, -0.0004133344627916813, 0.013803945854306221, -0.01877165399491787, -0.01715400442481041, 0.013572731986641884, 0.004204863216727972, 0.003583078272640705, 0.05094028264284134, 0.01582813635468483, 0.0016500474885106087, 0.1183832511305809, 0.04111591354012489],
            )),
            ('clipping by value', 'clip the global norm: torch.nn.utils.clip_grad_norm_', (
                [2.425344705581665, 2.4232935905456543],
                [-0.011986265890300274, -0.020833231508731842, 0.013043372891843319, -0.02031245268881321, -0.0029821305070072412, 0.006022233981639147, -0.020933808758854866, 0.01265180204063654, -0.027731092646718025, 0.009450502693653107, 0.021199723705649376, 0.02311934530735016, -0.01321809459477663, -0.015143023803830147, 0.021989131346344948, -0.00400913693010807, 0.018437674269080162, 0.008511016145348549, 0.007720750756561756, -0.0016901390627026558, 0.006015014369040728, -0.009937609545886517, 0.010867530480027199, -0.0048023369163274765, 0.009527308866381645, 0.003797744167968631, 0.007417274173349142, -0.028495831415057182, -0.017567817121744156, -0.005803854204714298, 0.03167121857404709, 0.012781362049281597, 0.009895439259707928, -0.046331945806741714, -0.006775162648409605, -0.016256680712103844, -0.02343640848994255, -0.01945241168141365, 0.014484419487416744, -0.012693395838141441, 0.00012128939852118492, -0.013621733523905277, -0.011442847549915314, 0.006754832807928324, 0.014496276155114174, 0.01188556756824255, 0.022701790556311607, -0.000980790238827467, 0.009028092958033085, 0.023614361882209778, 0.002518994268029928, -0.01981380395591259, -0.00013189762830734253, 0.013133314438164234, -0.016243427991867065, -0.01884162239730358, 0.009167195297777653, -0.0035634541418403387, 0.0023321248590946198, 0.048069506883621216, 0.019954556599259377, -0.010344861075282097, 0.02200481854379177, 0.024813147261738777],
            )),
            ('zero_grad between backward and step', 'call optimizer.step() after backward() and clipping, and do not clear the gradients between backward() and step(): zero them at the START of the step', (
                [2.425344705581665, 2.439002275466919],
                [-0.011986265890300274, 0.0042177839204669, -0.009437031112611294, -0.029793569818139076, -0.002946286927908659, 0.006009489763528109, -0.020964190363883972, 0.012675480917096138, -0.02774127572774887, 0.00944485329091549, 0.021212581545114517, 0.02310919389128685, -0.013221925124526024, -0.015134839341044426, 0.021967781707644463, -0.003935979213565588, 0.022647961974143982, 0.01626245304942131, 0.007818580605089664, -0.0007678901311010122, 0.0006505136843770742, 0.001744398265145719, 0.012963507324457169, -0.00176882348023355, 0.00851125456392765, 0.004407933913171291, 0.007401087321341038, -0.020930971950292587, -0.013873598538339138, -0.0015026454348117113, 0.030784184113144875, 0.013716724701225758, 0.011495349928736687, -0.03965912386775017, -0.0026407784316688776, -0.018313122913241386, -0.02265004999935627, -0.017264898866415024, 0.014146997593343258, -0.0021223686635494232, -0.005646348465234041, -0.013053926639258862, -0.008749938569962978, 0.013168297708034515, 0.0007999966037459671, 0.020219288766384125, 0.01734311878681183, 0.0026398447807878256, 0.010267920792102814, 0.02534671314060688, 0.0031292203348129988, -0.016857730224728584, 0.0142564307898283, 0.006579989567399025, -0.018834426999092102, -0.01355516817420721, 0.015346558764576912, 0.0006481804302893579, 0.006584953982383013, 0.015466984361410141, -0.0024566061329096556, -0.0033333252649754286, 0.02200481854379177, 0.031801845878362656],
            )),
            ('padding counted in the loss', 'use lm_loss(logits, targets, loss_mask), which skips padded targets', (
                [2.429993152618408, 2.4667935371398926],
                [-0.00904771126806736, 0.0036971797235310078, -0.008825698867440224, -0.029728151857852936, -0.0029462571255862713, 0.006009726319462061, -0.020963042974472046, 0.012675385922193527, -0.027741512283682823, 0.009444702416658401, 0.021212710067629814, 0.023109406232833862, -0.013221879489719868, -0.015134296379983425, 0.02196785993874073, -0.003936894237995148, 0.02285367250442505, 0.01612698659300804, 0.00780912023037672, -0.0005094257649034262, 0.0005367754492908716, 0.001790139707736671, 0.012971175834536552, -0.0018805121071636677, 0.008414994925260544, 0.004363442771136761, 0.007576341275125742, -0.020902974531054497, -0.013995305635035038, -0.0014748101821169257, 0.03081751987338066, 0.013742719776928425, 0.011453037150204182, -0.03940446302294731, -0.002600262640044093, -0.018269235268235207, -0.022691696882247925, -0.01734866574406624, 0.014181762933731079, -0.002206711797043681, -0.005448441486805677, -0.013063877820968628, -0.008778486400842667, 0.013173213228583336, 0.0009289611480198801, 0.02019549161195755, 0.017462119460105896, 0.002543400740250945, 0.010564746335148811, 0.02519061416387558, 0.0031187538988888264, -0.01684906706213951, 0.014097033068537712, 0.00679410295560956, -0.01885637640953064, -0.013551902957260609, 0.015141019597649574, 0.0007345267222262919, 0.006868857890367508, 0.01536018680781126, -0.0028383289463818073, -0.002739659743383527, 0.020324131473898888, 0.03075522556900978],
            )),
            ('returns the loss after the update', 'return the loss of the forward pass that produced the gradients, before optimizer.step()', (
                [2.373663902282715, 2.3709867000579834],
                None,
            )),
            ('each parameter clipped on its own', 'clip the norm of ALL gradients together: one call clip_grad_norm_(model.parameters(), max_grad_norm)', (
                None,
                [-0.011986265890300274, -2.6686640921980143e-05, -0.007074443157762289, -0.02933489717543125, -0.0029399655759334564, 0.006029961165040731, -0.020914144814014435, 0.012675078585743904, -0.027744309976696968, 0.009437264874577522, 0.0212006364017725, 0.02311268448829651, -0.013226094655692577, -0.015119863674044609, 0.021996505558490753, -0.00401801522821188, 0.02180156484246254, 0.012994944117963314, 0.0075776055455207825, 0.00044743053149431944, 0.0012078057043254375, -4.4320651795715094e-05, 0.012314360588788986, -0.0022403954062610865, 0.008312542922794819, 0.004384402651339769, 0.00724388612434268, -0.021303843706846237, -0.015593607909977436, -0.0028717988170683384, 0.030781369656324387, 0.013386156409978867, 0.01165456511080265, -0.041516128927469254, -0.004017219878733158, -0.017268789932131767, -0.022829312831163406, -0.01735810376703739, 0.014449230395257473, -0.0037109290715306997, -0.003845502156764269, -0.01260280329734087, -0.008709484711289406, 0.011727807112038136, 0.0024617318995296955, 0.0185875054448843, 0.018866753205657005, 0.00139593833591789, 0.010668856091797352, 0.024390587583184242, 0.002689114771783352, -0.01716645061969757, 0.011472323909401894, 0.008198937401175499, -0.01874675415456295, -0.014483965933322906, 0.014195386320352554, -0.00029021326918154955, 0.005538948345929384, 0.016586340963840485, -0.0034566642716526985, -0.003028267528861761, 0.019979888573288918, 0.031724512577056885],
            )),
            ('clipping hard-coded at 1.0', 'use the max_grad_norm argument', (
                [2.425344705581665, 2.432865858078003],
                [-0.011986265890300274, -0.044437527656555176, 0.016829904168844223, -0.025365864858031273, -0.002945658518001437, 0.006017476320266724, -0.020955318585038185, 0.012675128877162933, -0.027736959978938103, 0.009445269592106342, 0.021207643672823906, 0.023108908906579018, -0.013221568427979946, -0.015133732929825783, 0.021981248632073402, -0.003968087024986744, 0.02171272039413452, 0.014287305995821953, 0.007228216156363487, -0.0006178265903145075, 0.003545570420101285, -0.0040405308827757835, 0.011649543419480324, -0.0035867951810359955, 0.008622718043625355, 0.004236328415572643, 0.007922927848994732, -0.02270960621535778, -0.014382955618202686, -0.004555938299745321, 0.03133181110024452, 0.012868799269199371, 0.01133799273520708, -0.04116746038198471, -0.005675056017935276, -0.01683223806321621, -0.022958047688007355, -0.017700904980301857, 0.014448958449065685, -0.005566253326833248, -0.0035336248110979795, -0.012957366183400154, -0.007382923737168312, 0.010642439126968384, 0.0043944101780653, 0.01671990193426609, 0.019111458212137222, 0.0005813433090224862, 0.009669004008173943, 0.02506650984287262, 0.0015115253627300262, -0.018565673381090164, 0.006667838431894779, 0.0101556908339262, -0.01894400268793106, -0.015938865020871162, 0.01432524248957634, 0.00180585659109056, 0.005180893931537867, 0.03678224980831146, 0.0032506107818335295, -0.0016166497953236103, 0.0752764493227005, 0.033667005598545074],
            )),
            ('loss against the inputs instead of the targets', "one step, in this order and each once: zero the gradients; the loss of model(inputs) by lm_loss over the whole batch; backward; clip the global norm of ALL the parameters' gradients to max_grad_norm (clip_grad_norm_); the optimizer's step", (
                [2.4524476528167725, 2.4057118892669678],
                [-0.011986265890300274, -0.0007961360970512033, -0.009629892185330391, -0.032430507242679596, -0.0029457479249686003, 0.006009018514305353, -0.0209638811647892, 0.012675599195063114, -0.027740715071558952, 0.009444509632885456, 0.02121294103562832, 0.02310940809547901, -0.013222155161201954, -0.015134542249143124, 0.02196766436100006, -0.003935926128178835, 0.02278728596866131, 0.016122713685035706, 0.007892332971096039, -0.0005941555718891323, 0.0005660392343997955, 0.0019476247252896428, 0.012802437879145145, -0.00185993907507509, 0.008459871634840965, 0.004333407152444124, 0.007361802738159895, -0.0210109855979681, -0.013838040642440319, -0.0015797714004293084, 0.030781563371419907, 0.013584124855697155, 0.011589786037802696, -0.03979334980249405, -0.002694123424589634, -0.018368437886238098, -0.022732775658369064, -0.017178284004330635, 0.014189501293003559, -0.002167913131415844, -0.005698054563254118, -0.013218838721513748, -0.008713415823876858, 0.013018671423196793, 0.0008790118154138327, 0.02027539350092411, 0.017349986359477043, 0.002825257135555148, 0.01049739122390747, 0.025434182956814766, 0.003131589852273464, -0.0170495193451643, 0.014077702537178993, 0.006540524773299694, -0.018995823338627815, -0.01356376800686121, 0.015323042869567871, 0.0010296192485839128, 0.006692513357847929, 0.015538699924945831, -0.0045887622982263565, -0.006061147432774305, 0.02062275819480419, 0.031213827431201935],
            )),
            ('model run on the targets', "one step, in this order and each once: zero the gradients; the loss of model(inputs) by lm_loss over the whole batch; backward; clip the global norm of ALL the parameters' gradients to max_grad_norm (clip_grad_norm_); the optimizer's step", (
                [2.449094533920288, 2.4222512245178223],
                [-0.011986265890300274, 0.0011333476286381483, -0.0097891204059124, -0.03141721710562706, -0.002945544430986047, 0.0060094501823186874, -0.020963585004210472, 0.012675569392740726, -0.02774064987897873, 0.009444748982787132, 0.02121219038963318, 0.023109370842576027, -0.013222665525972843, -0.01513306051492691, 0.0219685360789299, -0.003934547770768404, 0.022636529058218002, 0.016317924484610558, 0.007867563515901566, -0.0005551981157623231, 0.0006590344710275531, 0.0019264181610196829, 0.01296237576752901, -0.0017881327075883746, 0.008494975045323372, 0.00417194003239274, 0.007353987544775009, -0.020925171673297882, -0.013826731592416763, -0.001682804198935628, 0.030832434073090553, 0.013543813489377499, 0.01169211883097887, -0.039881810545921326, -0.0025661655236035585, -0.018384668976068497, -0.02275983989238739, -0.017238616943359375, 0.014147534966468811, -0.0020284722559154034, -0.005388610064983368, -0.01309223659336567, -0.008681115694344044, 0.013065731152892113, 0.0010052561992779374, 0.020381344482302666, 0.017508378252387047, 0.0029225852340459824, 0.010496341623365879, 0.025452563539147377, 0.003010004526004195, -0.01702308841049671, 0.014137896709144115, 0.006808957550674677, -0.018957532942295074, -0.013424281030893326, 0.015263811685144901, 0.0007921763462945819, 0.006670954637229443, 0.015087569132447243, -0.005182559601962566, -0.006288743577897549, 0.019501641392707825, 0.030516942963004112],
            )),
        ],
        'stale gradients': [
            ("zero_grad at the end of the step, not at its start (nanoGPT's order)", 'call optimizer.zero_grad() FIRST: the model may arrive holding gradients from before (an earlier backward), and backward() adds to them', (
                None,
                [-0.020228862762451172, -0.005626729689538479, -0.01685997098684311, -0.03787986934185028, -0.011188620701432228, -0.0022327699698507786, -0.029206808656454086, 0.0044329846277832985, -0.03598376363515854, 0.0012023001909255981, 0.01296983566135168, 0.014866458252072334, -0.021464461460709572, -0.023377515375614166, 0.013725615106523037, -0.01217973418533802, 0.014360860921442509, 0.00800585187971592, -0.00045036058872938156, -0.009053267538547516, -0.007495633326470852, -0.006706808228045702, 0.004674939438700676, -0.01007091999053955, 0.00027302373200654984, -0.0038323402404785156, -0.0008155880495905876, -0.02920600399374962, -0.022136056795716286, -0.009871532209217548, 0.022560104727745056, 0.00543767586350441, 0.0032412949949502945, -0.047934986650943756, -0.011024951003491879, -0.026521824300289154, -0.030904334038496017, -0.025526035577058792, 0.0059200795367360115, -0.010467938147485256, -0.013848908245563507, -0.02129169926047325, -0.016917450353503227, 0.004851632751524448, -0.007341161370277405, 0.01179391797631979, 0.009138993918895721, -0.005672838538885117, 0.0020548244938254356, 0.017072513699531555, -0.005132838152348995, -0.025145940482616425, 0.0058115506544709206, -0.001554751768708229, -0.027066631242632866, -0.021839231252670288, 0.007060506381094456, -0.0075646392069756985, -0.0017219479195773602, 0.007349716499447823, -0.010530197061598301, -0.011487700045108795, 0.013281211256980896, 0.02385616861283779],
            )),
        ],
    },
    'evaluate': {
        'worked': [
            ('mean of per-batch means', 'weight every token the same: add the summed losses of ALL batches and divide by the total number of real targets', 1.3347848653793335),
            ('padding counted', 'multiply the per-token losses by loss_mask and count only real targets', 1.5418604016304016),
            ('sum not divided by the token count', 'divide the summed loss by the number of real targets', 5.8499650955200195),
            ('only the last batch counted', 'add every batch to the running totals (total += ...), do not overwrite', 1.6094379425048828),
            ('perplexity returned', "return the mean loss in nats itself; perplexity is notebook 08's business", 3.2219701462114987),
            ('return inside the loop (first batch only)', 'return after the loop, once every batch has been added to the totals', 1.0601317882537842),
            ('summed loss divided by the number of batches', 'weight every token the same: add the summed losses of ALL batches and divide by the total number of real targets', 2.9249825477600098),
            ('floor division', 'true division for the mean over the real targets (// rounds down)', 1.0),
            ('batches weighted by their rows (len(targets))', 'weight every token the same: add the summed losses of ALL batches and divide by the total number of real targets', 1.2432338396708171),
        ],
        'pad 3': [
            ('ignore_index=0 and the targets that are not 0 counted', 'loss_mask says which targets are real; the pad id may be any id (and 0 may be a real token): weight by loss_mask rather than ignore_index', 1.031363582611084),
            ('ignore_index=0 instead of loss_mask', 'loss_mask says which targets are real; the pad id may be any id (and 0 may be a real token): weight by loss_mask rather than ignore_index', 1.289204478263855),
        ],
    },
    'ablate_head': {
        'zero': [
            ('sign flipped: clean minus ablated', "the change is ablated minus clean: a head that helped lowers the target's log-probability when it is removed, so its change is negative", [
                [0.04271155595779419, 0.21671557426452637, 0.4872788190841675, -0.14492011070251465, 0.4621586799621582, 0.34166717529296875],
                [0.40145015716552734, -0.4562544822692871, 0.26230156421661377, 0.10955286026000977, -0.36022186279296875, 0.08654594421386719],
            ]),
            ('logits of position t scored against ids[:, t]', 'the logits at position t predict the token after it: score log_softmax of positions 0..L-2 against ids[:, 1:]', [
                [0.023620009422302246, -0.4872788190841675, -0.2042521834373474, 0.3917722702026367, -0.4605576992034912, -0.24664831161499023],
                [-0.40144872665405273, -0.3281528949737549, -0.09902071952819824, 0.2976970672607422, -0.3112964630126953, -0.18300724029541016],
            ]),
            ('log_softmax over the positions', "log_softmax over the vocabulary, the last axis (dim=-1): each position's distribution over the next token", [
                [-0.05548524856567383, 0.11775469779968262, -0.22417378425598145, -0.21104955673217773, -0.0158846378326416, -0.029877185821533203],
                [-0.5072333812713623, 0.41576147079467773, -0.15193533897399902, -0.14318108558654785, 0.1159517765045166, 0.11887550354003906],
            ]),
            ('probabilities instead of log-probabilities', 'compare LOG-probabilities (torch.log_softmax over the vocabulary), not probabilities', [
                [-0.017250508069992065, -0.02755894511938095, -0.07806865125894547, 0.006220478564500809, -0.02562759816646576, -0.003704904578626156],
                [-0.009696660563349724, 0.0018200087361037731, -0.058491602540016174, -0.0033718273043632507, 0.004409550689160824, -0.0037478357553482056],
            ]),
            ("zero: W_V's weight rows zeroed in a copy, its bias left", "an ablation through the weights must take the bias too: with only W_V's weight rows zeroed the head still outputs its value bias, and with only W_Q's weight rows zeroed its query bias still makes the scores depend on the keys; zero the bias rows as well, or replace the head's output (its columns of W_O's input) with a hook", [
                [-0.08920562267303467, -0.2510366439819336, -0.48649346828460693, 0.14287018775939941, -0.5709547996520996, -0.4153299331665039],
                [-0.35181498527526855, 0.376101016998291, -0.25559020042419434, -0.14529204368591309, 0.26636266708374023, -0.019485950469970703],
            ]),
            ('columns head * d_model instead of head * d_k', "W_O reads the heads' outputs concatenated: head h owns the d_k = d_model / n_heads columns from h * d_k up to (h + 1) * d_k, and a forward pre-hook must return the changed input for it to take effect", [
                [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            ]),
            ('hooks registered before the clean pass', "every change is 0: the ablated pass ran like the clean one. Run the clean pass before the hooks go on, then the ablated one. W_O reads the heads' outputs concatenated: head h owns the d_k = d_model / n_heads columns from h * d_k up to (h + 1) * d_k, and a forward pre-hook must return the changed input for it to take effect", [
                [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            ]),
            ('the columns of the next head', "W_O reads the heads' outputs concatenated: head h owns the d_k = d_model / n_heads columns from h * d_k up to (h + 1) * d_k, and a forward pre-hook must return the changed input for it to take effect", [
                [0.16221845149993896, 0.354891300201416, -0.23207056522369385, -0.029652118682861328, 0.4969818592071533, 0.38081836700439453],
                [-0.04876518249511719, 0.04801368713378906, 0.03916168212890625, 0.014673471450805664, 0.061769962310791016, 0.13116168975830078],
            ]),
            ('the head ablated in every block', 'ablate one head of one block: the hooks go on model.blocks[layer].attn only, and only the columns of `head` change', [
                [-0.9522371888160706, -0.07877826690673828, -0.18110871315002441, 0.1206047534942627, -0.3872990608215332, -0.24290847778320312],
                [-0.11729264259338379, -0.10976934432983398, -0.32525181770324707, 0.9148874282836914, -0.027312755584716797, 0.506709098815918],
            ]),
            ('every head of the block zeroed', 'ablate one head of one block: the hooks go on model.blocks[layer].attn only, and only the columns of `head` change', [
                [-0.7168143391609192, -0.7990803718566895, -0.5543762445449829, -0.4267559051513672, 0.8241493701934814, 0.2509193420410156],
                [-1.291517972946167, 0.4178614616394043, -0.2990978956222534, -1.0636000633239746, 0.897442102432251, 0.3924441337585449],
            ]),
            ("the head's queries zeroed instead of its output", 'mode "zero" replaces the head\'s OUTPUT (its columns of W_O\'s input) by zeros; zeroing its queries or keys only makes its attention uniform, which is mode "uniform"', [
                [0.0, -0.017091035842895508, -0.052103400230407715, 0.012022256851196289, -0.009144783020019531, -0.1600208282470703],
                [0.0, -9.5367431640625e-07, 0.013971805572509766, 0.02108144760131836, -0.08424854278564453, 0.05770730972290039],
            ]),
        ],
        'uniform': [
            ("uniform: the values taken from W_V's input", "the head's values are W_V's OUTPUT, its columns cols: a forward hook's third argument, not the input it reads", [
                [0.05738711357116699, -0.46785807609558105, 0.041094303131103516, 0.25238919258117676, 0.6070232391357422, -0.45873117446899414],
                [1.1241366863250732, 3.0342679023742676, -0.34778594970703125, 0.3175952434539795, 2.2892675399780273, 0.8557732105255127],
            ]),
            ("uniform: W_Q's weight rows zeroed in a copy, its bias left", "an ablation through the weights must take the bias too: with only W_V's weight rows zeroed the head still outputs its value bias, and with only W_Q's weight rows zeroed its query bias still makes the scores depend on the keys; zero the bias rows as well, or replace the head's output (its columns of W_O's input) with a hook", [
                [0.0, -0.27881455421447754, 0.040501952171325684, -0.19039297103881836, 1.0516854524612427, -0.17745637893676758],
                [0.0, -1.430511474609375e-06, 0.11925339698791504, 0.35562562942504883, -0.043378353118896484, -0.1850905418395996],
            ]),
            ('uniform over every position, later ones included', "uniform attention is uniform over the ALLOWED keys: at position t the mean of the head's values at positions 0..t (a running mean along the sequence), never a later one", [
                [-0.38318508863449097, -0.20128083229064941, -0.024057626724243164, -0.005165576934814453, 2.1909446716308594, -0.2743406295776367],
                [0.3583850860595703, 2.3214755058288574, 0.13776159286499023, -0.2007286548614502, 1.1939516067504883, -0.26070642471313477],
            ]),
            ('uniform weights 1 / L over the whole row', 'the uniform weights of row t are 1 / (t + 1) on keys 0..t: they sum to one over the allowed keys, not 1 / L over the whole row', [
                [0.2282015085220337, -0.5300724506378174, 0.2075960636138916, 0.14524435997009277, 1.2696101665496826, -0.3230619430541992],
                [0.6146783828735352, 2.1019716262817383, 0.16755449771881104, 0.17007756233215332, 0.9302995204925537, 0.13438725471496582],
            ]),
        ],
        'mean': [
            ('mean: one number over the rows, positions and columns', "average over the batch and position axes (0 and 1), not over the head's d_k columns", [
                [-0.4991007447242737, -0.18155908584594727, -1.1015318632125854, -1.0182788372039795, -1.2578423023223877, -1.265599250793457],
                [1.316457986831665, 3.6580910682678223, -0.4363476037979126, -0.10442209243774414, -0.07009506225585938, -0.5231528282165527],
            ]),
            ("mean: each row's own average", 'for "mean" average the head\'s output over every position of every row: y[..., cols].mean(dim=(0, 1)), one vector of d_k numbers', [
                [-0.9654613137245178, 0.28999483585357666, -0.26049554347991943, -0.1544349193572998, -0.9098632335662842, -0.5546255111694336],
                [1.0192348957061768, 3.381814479827881, -0.15057611465454102, -0.12358880043029785, -0.14097929000854492, -0.2036886215209961],
            ]),
            ('mean: the average over the rows at each position', 'for "mean" average the head\'s output over every position of every row: y[..., cols].mean(dim=(0, 1)), one vector of d_k numbers', [
                [0.15299469232559204, -0.4711453914642334, 0.10512304306030273, 0.10402178764343262, -1.0515165328979492, -0.24647235870361328],
                [0.535078763961792, 2.5542874336242676, 0.2322911024093628, 0.07223749160766602, 0.2560453414916992, 0.0063018798828125],
            ]),
            ("mean: the head's columns averaged at each position", "average over the batch and position axes (0 and 1), not over the head's d_k columns", [
                [-0.3326866030693054, -0.30813097953796387, -1.1553393602371216, -0.9206368923187256, -1.005016565322876, -1.342616081237793],
                [0.28614306449890137, 1.3612289428710938, -0.6994339227676392, -0.4132254123687744, -0.1159811019897461, -0.3280477523803711],
            ]),
            ('mean: the values averaged, not the output', "average the head's output (its columns of W_O's input), not its values: the output is what the next layers read", [
                [-0.44769829511642456, -0.2825953960418701, -0.6271170377731323, -0.7868516445159912, -1.724327564239502, -1.0504026412963867],
                [1.1469652652740479, 3.354780673980713, -0.3883589506149292, -0.12388372421264648, -0.4562253952026367, -0.36660075187683105],
            ]),
            ('mean: the output zeroed', 'for "mean" replace the head\'s output at every position by its average output over ids (not by zeros, and not by the uniform mix of its values)', [
                [-0.5263769030570984, -0.16636085510253906, -1.0768216848373413, -1.0208313465118408, -1.1494457721710205, -1.2677407264709473],
                [1.3560245037078857, 3.758169174194336, -0.4160044193267822, -0.07778263092041016, 0.005167961120605469, -0.43214893341064453],
            ]),
            ('mean: no branch of its own, so it is made uniform', 'for "mean" replace the head\'s output at every position by its average output over ids (not by zeros, and not by the uniform mix of its values)', [
                [0.0, -0.4013376235961914, -0.163010835647583, -0.19312429428100586, -1.146334171295166, -0.5130019187927246],
                [0.0, 4.76837158203125e-07, -1.5402060747146606, -0.4617793560028076, -0.34475231170654297, -0.44478297233581543],
            ]),
        ],
    },
}
